// Where an interrupted instruction is, in terms of the program alone: which
// IR operation of which function, and which machine instruction of that
// operation's lowering. The harness computes it from the emitter's line
// table; the decision oracle reads only this, never the table itself.
#ifndef SAFEPOINT_CORE_POSITION_H_
#define SAFEPOINT_CORE_POSITION_H_

#include "core/ir.h"

namespace safepoint {

struct IrPosition {
  const ir::Function* fn = nullptr;  // nullptr: not in any function of the program
  bool stub = false;     // in a runtime service stub (assembly)
  // For a stub: the program and the service it implements; the state in
  // the stub is the state at the operations that call it.
  const ir::Program* prog = nullptr;
  ir::Service service = ir::Service::kCount;
  int op = -1;           // index in fn->body; -1: before the body or after it
  bool after_body = false;   // op == -1 and past the body: the morestack path
  int insn_in_fn = 0;    // machine instruction index from the function's entry
  int insn_in_op = 0;    // machine instruction index within the op's lowering
  bool last_in_op = false;   // the last machine instruction of the op (a call's call)
};

}  // namespace safepoint

#endif
