// The meaning of the portable IR operations, independent of any port: an
// interpreter of one goroutine's code that gives the globals a program
// leaves. Every port's lowering must leave the same (conformance's
// semantics_test), so an operation means one thing everywhere.
//
// Portable: movi addi muli add mov, labels and branches, call ret, ld st
// ldslot stslot, atomic_add, wb_store (with the write barrier off), usetmp,
// inline regions, dumpregs, the services that do not change state
// (gosched, acquirem ... secret_end, sleep), handshake N and a wait for a
// handshake the goroutine made itself, and the heap: alloc, ldm, stm,
// vload, vstore (objects at abstract addresses: a program that stores a
// pointer in a global leaves a port's own address there, which the
// interpreter cannot predict), addrslot (a frame slot's address, abstract
// too; ldm and stm through it reach the slot while its call is under way),
// and `go` of a function that only computes in registers (it leaves
// nothing, whenever it runs). vfill, vdump and setflags change no global
// (vfill leaves the port's pattern in the vector register vload and
// vstore use, so a vstore needs a vload after it); fillregs and sumregs
// leave the port's own values in registers, which the program must not
// read. Not portable, refused: any other go, a wait for a handshake nobody
// in the goroutine made, callback (other goroutines, hooks), flagsdump (the
// port's flags in globals), and reading a register a call clobbered or
// fillregs/sumregs set.
#ifndef SAFEPOINT_ORACLE_SEMANTICS_H_
#define SAFEPOINT_ORACLE_SEMANTICS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir.h"

namespace safepoint::oracle {

// Runs `main` of `prog`; false with *err for a program outside the portable
// subset, one that reads a register a call clobbered, or one that runs more
// than `max_steps` operations.
bool Interpret(const ir::Program& prog, const std::string& main, std::vector<uint64_t>* globals, std::string* err,
               uint64_t max_steps = 10'000'000);

// The vector registers `vfill` and `vdump` reach on one port at one tier of
// extended state: each register's bytes [offset, offset + size) in the
// tier's layout (core/ir.h, "Vectors and flags"; PortInfo::saved_regs of
// kind kVector and that tier).
struct VectorLayout {
  std::vector<std::pair<uint32_t, uint32_t>> regs;  // offset, size
};

// Where a program's code may run, as the interpreter ran it: `ops[f][i]`
// for operation i of prog.funcs[f], `entered[f]` for a function called,
// `services[s]` for a service an operation it ran called (the runtime's
// stub for it runs then; goexit's, where every goroutine ends, always). A
// function a `go` starts (one that only computes in registers, whenever it
// runs, if ever) counts as entered with every operation run: the
// interpreter does not say when, or whether, it runs. Everything else not
// marked never runs in an unpreempted run of a program the interpreter
// predicts: a deterministic program of one goroutine.
struct MayRun {
  std::vector<std::vector<bool>> ops;
  std::vector<bool> entered;
  std::vector<bool> services;  // by ir::Service
};

// What a program leaves: its globals, and its vector dump areas
// (ir::kVDumpAreas areas of ir::kVDumpBytes, zero where nothing was
// dumped) as `vdump` stores the registers of `layout`. Within the
// interpreter's subset, and one more rule: a vdump must follow a vfill with
// no call, service or vload between (the registers then hold the port's or
// the runtime's own values, which only a run shows). The reference an armed
// run is judged against where the unpreempted run need not be made
// (oracle/preempt_case.cc); false with *err where it cannot be predicted.
// With `may_run`, also where the code may run (MayRun).
bool InterpretEndState(const ir::Program& prog, const std::string& main, const VectorLayout& layout,
                       std::vector<uint64_t>* globals, std::vector<uint8_t>* vdump, std::string* err,
                       uint64_t max_steps = 10'000'000, MayRun* may_run = nullptr);

}  // namespace safepoint::oracle

#endif
