// A Go binary's pclntab as the project's function table (core/functab.h),
// so that the frame-table oracle judges Go's pcsp exactly as it judges the
// reference runtime's: entries and ends, pcsp with where the return address
// is (on a link-register CPU Go's unwinder reads it from 0(SP) once the
// frame is allocated, from the link register before), and the calls the
// return-site check needs (FuncInfo::return_sites): each instruction whose
// bytes are a call by the port's PortInfo::GoFacts::call_before, its bounds
// by the port's disassembler where instructions vary in length. Offsets are the
// binary's virtual addresses (code_base 0).
#ifndef SAFEPOINT_REALGO_TABLE_H_
#define SAFEPOINT_REALGO_TABLE_H_

#include <string>

#include "core/functab.h"
#include "platforms/port.h"
#include "realgo/binary.h"

namespace safepoint::realgo {

// False with *err when the binary's text lies beyond 4 GiB (the table's
// offsets are 32-bit) or its functions cannot be read.
bool GoFuncTable(const GoBinary& bin, const PortInfo& port, FuncTable* out, std::string* err);

// The instruction boundaries and the text of every instruction in
// [lo, hi), by the port's disassembler (PortInfo::objdump) over the bytes
// the binary holds there.
struct GoInsn {
  uint64_t pc;
  std::string text;
};
bool GoInstructions(const GoBinary& bin, const PortInfo& port, uint64_t lo, uint64_t hi, std::vector<GoInsn>* out,
                    std::string* err);

}  // namespace safepoint::realgo

#endif
