#include "fuzz/case_protocol.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "fuzz/artifacts.h"
#include "fuzz/verdict_protocol.h"
#include "fuzz/wire.h"
#include "harness/mutations.h"
#include "platforms/native.h"

namespace safepoint::fuzz::cases {

namespace {

using wire::Reader;
using wire::Writer;

// An event goes as the bytes of its record: every port is little-endian
// LP64 and lays it out so (checked here, on each port's build). A field
// added to Event, FuncInfo, FrameImage, SaveAreaImage or RegisterImage
// changes its size here: send it below, then change the size.
static_assert(std::is_trivially_copyable_v<Event> && sizeof(Event) == 56 && offsetof(Event, kind) == 8 &&
                  offsetof(Event, source) == 9 && offsetof(Event, reason) == 10 && offsetof(Event, goid) == 16 &&
                  offsetof(Event, pc) == 24 && offsetof(Event, arg) == 32 && offsetof(Event, when) == 40 &&
                  offsetof(Event, m) == 48 && offsetof(Event, p) == 52,
              "an Event's record changed: the case protocol sends it as bytes");
static_assert(sizeof(FuncInfo) == 280, "FuncInfo changed: send the new field (PutTable, GetTable)");
static_assert(sizeof(harness::FrameImage) == 104, "FrameImage changed: send the new field (PutFrame, GetFrame)");
static_assert(sizeof(harness::SaveAreaImage) == 6328,
              "SaveAreaImage or RegisterImage changed: send the new field (PutSave, GetSave)");

// A vector of 4-byte integers: u32 count, then the integers as the
// little-endian bytes every port holds them in.
template <typename T>
void PutInts(Writer& w, const std::vector<T>& v) {
  static_assert(sizeof(T) == 4 && std::is_integral_v<T>);
  w.U32(static_cast<uint32_t>(v.size()));
  w.Raw(v.data(), v.size() * 4);
}
template <typename T>
bool GetInts(Reader& r, std::vector<T>* v) {
  static_assert(sizeof(T) == 4 && std::is_integral_v<T>);
  uint32_t n;
  std::string_view b;
  if (!r.U32(&n) || !r.Raw(static_cast<size_t>(n) * 4, &b)) return false;
  v->resize(n);
  if (n > 0) memcpy(v->data(), b.data(), b.size());
  return true;
}
// A count the rest of the payload can hold at `each` bytes an item at least.
bool Count(Reader& r, size_t each, size_t left, uint32_t* n) {
  if (!r.U32(n)) return false;
  if (static_cast<uint64_t>(*n) * each > left) return r.Bad(std::to_string(*n) + " items");
  return true;
}

// Records of 4-byte fields and no padding, as their bytes (every port
// lays them out alike: little-endian, checked here on each port's build).
static_assert(sizeof(CodeRange) == 8 && offsetof(CodeRange, hi) == 4, "CodeRange changed: send it field by field");
static_assert(sizeof(FuncInfo::Restart) == 12 && offsetof(FuncInfo::Restart, hi) == 4 &&
                  offsetof(FuncInfo::Restart, mark) == 8,
              "FuncInfo::Restart changed: send it field by field");
template <typename T>
void PutRecords(Writer& w, const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0);
  w.U32(static_cast<uint32_t>(v.size()));
  w.Raw(v.data(), v.size() * sizeof(T));
}
template <typename T>
bool GetRecords(Reader& r, size_t size, std::vector<T>* v) {
  uint32_t n;
  std::string_view b;
  if (!Count(r, sizeof(T), size, &n) || !r.Raw(static_cast<size_t>(n) * sizeof(T), &b)) return false;
  v->resize(n);
  if (n > 0) memcpy(v->data(), b.data(), b.size());
  return true;
}

void PutTable(Writer& w, const FuncTable& t) {
  w.U32(static_cast<uint32_t>(t.funcs.size()));
  for (const FuncInfo& f : t.funcs) {
    w.Str(f.name), w.Str(f.package);
    w.U32(f.entry), w.U32(f.end), w.U32(f.flags);
    w.U32(static_cast<uint32_t>(f.frame)), w.U32(static_cast<uint32_t>(f.max_sp_delta));
    w.U32(f.prologue.lo), w.U32(f.prologue.hi), w.U32(f.tail.lo), w.U32(f.tail.hi);
    PutInts(w, f.call_sites), PutInts(w, f.return_sites), PutInts(w, f.ptr_slots);
    w.U32(static_cast<uint32_t>(f.slot_base)), w.U32(static_cast<uint32_t>(f.args));
    // (The SP table as three arrays, the ranges as their records' bytes:
    // a field at a time, a table took ~170 us to read under qemu-aarch64.)
    const uint32_t n = static_cast<uint32_t>(f.pcsp.size());
    w.U32(n);
    std::vector<uint32_t> col(n);
    for (uint32_t i = 0; i < n; i++) col[i] = f.pcsp[i].from;
    w.Raw(col.data(), n * 4);
    for (uint32_t i = 0; i < n; i++) col[i] = static_cast<uint32_t>(f.pcsp[i].delta);
    w.Raw(col.data(), n * 4);
    std::vector<uint8_t> lr(n);
    for (uint32_t i = 0; i < n; i++) lr[i] = f.pcsp[i].lr_saved;
    w.Raw(lr.data(), n);
    PutRecords(w, f.unsafe), PutRecords(w, f.restarts);
    w.U32(static_cast<uint32_t>(f.inlines.size()));
    for (const FuncInfo::Inline& s : f.inlines)
      w.U32(s.lo), w.U32(s.hi), w.Str(s.name), w.Str(s.package), w.U32(static_cast<uint32_t>(s.parent));
  }
  PutInts(w, t.insns), PutInts(w, t.insn_op);
}

bool GetTable(Reader& r, size_t size, FuncTable* t) {
  uint32_t n;
  if (!Count(r, 64, size, &n)) return false;
  t->funcs.resize(n);
  for (FuncInfo& f : t->funcs) {
    uint32_t k;
    if (!r.Str(&f.name) || !r.Str(&f.package) || !r.U32(&f.entry) || !r.U32(&f.end) || !r.U32(&f.flags) ||
        !r.I32(&f.frame) || !r.I32(&f.max_sp_delta) || !r.U32(&f.prologue.lo) || !r.U32(&f.prologue.hi) ||
        !r.U32(&f.tail.lo) || !r.U32(&f.tail.hi) || !GetInts(r, &f.call_sites) || !GetInts(r, &f.return_sites) ||
        !GetInts(r, &f.ptr_slots) || !r.I32(&f.slot_base) || !r.I32(&f.args) || !Count(r, 9, size, &k))
      return false;
    std::string_view from, delta, lr;
    if (!r.Raw(static_cast<size_t>(k) * 4, &from) || !r.Raw(static_cast<size_t>(k) * 4, &delta) || !r.Raw(k, &lr))
      return false;
    f.pcsp.resize(k);
    for (uint32_t i = 0; i < k; i++) {
      FuncInfo::SpState& s = f.pcsp[i];
      memcpy(&s.from, from.data() + 4 * i, 4);
      memcpy(&s.delta, delta.data() + 4 * i, 4);
      if (static_cast<uint8_t>(lr[i]) > 1) return r.Bad("a saved-LR flag of " + std::to_string(lr[i]));
      s.lr_saved = lr[i] != 0;
    }
    if (!GetRecords(r, size, &f.unsafe) || !GetRecords(r, size, &f.restarts)) return false;
    if (!Count(r, 20, size, &k)) return false;
    f.inlines.resize(k);
    for (FuncInfo::Inline& s : f.inlines)
      if (!r.U32(&s.lo) || !r.U32(&s.hi) || !r.Str(&s.name) || !r.Str(&s.package) || !r.I32(&s.parent)) return false;
  }
  return GetInts(r, &t->insns) && GetInts(r, &t->insn_op);
}

static_assert(sizeof(ir::Insn) == 64 && sizeof(ir::Function) == 136,
              "ir::Insn or ir::Function changed: send the new field (EncodeProgram, DecodeProgram)");

void PutFrame(Writer& w, const harness::FrameImage& f) {
  w.U8(f.seen), w.U64(f.code_base), w.U64(f.pc), w.U64(f.sp), w.U8(f.has_lr), w.U64(f.lr);
  w.U64(f.stack_lo), w.U64(f.stack_hi), w.U64(f.base), w.U64(f.goexit);
  w.Bytes(f.stack.data(), f.stack.size());
}
bool GetU(Reader& r, uintptr_t* v) {
  uint64_t u;
  if (!r.U64(&u)) return false;
  *v = static_cast<uintptr_t>(u);
  return true;
}
bool GetBytes(Reader& r, std::vector<uint8_t>* v) {
  std::string_view s;
  if (!r.View(&s)) return false;
  v->assign(s.begin(), s.end());
  return true;
}
bool GetFrame(Reader& r, harness::FrameImage* f) {
  return r.Bool(&f->seen) && GetU(r, &f->code_base) && GetU(r, &f->pc) && GetU(r, &f->sp) && r.Bool(&f->has_lr) &&
         GetU(r, &f->lr) && GetU(r, &f->stack_lo) && GetU(r, &f->stack_hi) && GetU(r, &f->base) &&
         GetU(r, &f->goexit) && GetBytes(r, &f->stack);
}

void PutSave(Writer& w, const harness::SaveAreaImage& s) {
  w.U8(s.seen);
  w.Bytes(s.frame.data(), s.frame.size());
  w.U32(static_cast<uint32_t>(s.tier));
  w.Bytes(s.xstate.data(), s.xstate.size());
  const RegisterImage& t = s.trap;
  const size_t n = t.count < RegisterImage::kMaxRegs ? t.count : RegisterImage::kMaxRegs;
  w.U32(static_cast<uint32_t>(n));
  w.Bytes(t.known, n);
  w.Bytes(t.bytes, n * RegisterImage::kMaxBytes);
  w.U8(t.link_known), w.U64(t.link);
}
bool GetSave(Reader& r, harness::SaveAreaImage* s) {
  std::string_view known, bytes;
  uint32_t n;
  RegisterImage& t = s->trap;
  if (!r.Bool(&s->seen) || !GetBytes(r, &s->frame) || !r.I32(&s->tier) || !GetBytes(r, &s->xstate) || !r.U32(&n))
    return false;
  if (n > RegisterImage::kMaxRegs) return r.Bad(std::to_string(n) + " registers");
  if (!r.View(&known) || !r.View(&bytes) || !r.Bool(&t.link_known) || !r.U64(&t.link)) return false;
  if (known.size() != n || bytes.size() != n * RegisterImage::kMaxBytes) return r.Bad("a register image's size");
  t.count = n;
  memcpy(t.known, known.data(), n);
  memcpy(t.bytes, bytes.data(), bytes.size());
  return true;
}

// An environment, every field but the port (the executor's, said in its
// hello). (EmitEnv's size is checked in platforms/common/emit.cc.)
void PutEnv(Writer& w, const EmitEnv& e) {
  w.U64(e.globals), w.U64(e.mcall), w.U64(e.systemstack), w.U64(e.morestack);
  w.U32(static_cast<uint32_t>(std::size(e.service_fn)));
  for (uint64_t f : e.service_fn) w.U64(f);
  w.U64(e.vdump), w.U32(static_cast<uint32_t>(e.xtier)), w.U64(e.wbflag), w.U8(e.omit_stack_check), w.U32(e.isolate);
}
bool GetEnv(Reader& r, EmitEnv* e) {
  uint32_t n;
  if (!r.U64(&e->globals) || !r.U64(&e->mcall) || !r.U64(&e->systemstack) || !r.U64(&e->morestack) || !r.U32(&n))
    return false;
  if (n != std::size(e->service_fn))
    return r.Bad(std::to_string(n) + " service entries (this build has " + std::to_string(std::size(e->service_fn)) +
                 ")");
  for (uint64_t& f : e->service_fn)
    if (!r.U64(&f)) return false;
  return r.U64(&e->vdump) && r.I32(&e->xtier) && r.U64(&e->wbflag) && r.Bool(&e->omit_stack_check) &&
         r.U32(&e->isolate);
}

void PutStrings(Writer& w, const std::vector<std::string>& v) {
  w.U32(static_cast<uint32_t>(v.size()));
  for (const std::string& x : v) w.Str(x);
}
bool GetStrings(Reader& r, size_t size, std::vector<std::string>* v) {
  uint32_t n;
  if (!Count(r, 4, size, &n)) return false;
  v->resize(n);
  for (std::string& x : *v)
    if (!r.Str(&x)) return false;
  return true;
}

}  // namespace

std::string EncodeProgram(const ir::Program& p) {
  Writer w;
  w.U32(static_cast<uint32_t>(p.funcs.size()));
  for (const ir::Function& f : p.funcs) {
    w.Str(f.name), w.Str(f.package), w.U32(static_cast<uint32_t>(f.frame));
    w.U8(f.nosplit), w.U8(f.is_asm), w.U8(f.nongo), w.U8(f.restart_at_entry);
    PutInts(w, f.ptr_slots);
    w.U32(static_cast<uint32_t>(f.args)), w.U32(static_cast<uint32_t>(f.line));
    w.U32(static_cast<uint32_t>(f.body.size()));
    for (const ir::Insn& i : f.body) {
      w.U8(static_cast<uint8_t>(i.op)), w.U8(static_cast<uint8_t>(i.service));
      w.U32(static_cast<uint32_t>(i.rd)), w.U32(static_cast<uint32_t>(i.rs)), w.I64(i.imm);
      w.Str(i.target), w.U32(static_cast<uint32_t>(i.line));
    }
  }
  return w.bytes();
}

bool DecodeProgram(std::string_view bytes, ir::Program* out, std::string* err) {
  Reader r(bytes);
  ir::Program p;
  uint32_t n;
  if (!Count(r, 32, bytes.size(), &n)) return *err = r.err, false;
  p.funcs.resize(n);
  for (ir::Function& f : p.funcs) {
    uint32_t k;
    if (!r.Str(&f.name) || !r.Str(&f.package) || !r.I32(&f.frame) || !r.Bool(&f.nosplit) || !r.Bool(&f.is_asm) ||
        !r.Bool(&f.nongo) || !r.Bool(&f.restart_at_entry) || !GetInts(r, &f.ptr_slots) || !r.I32(&f.args) ||
        !r.I32(&f.line) || !Count(r, 26, bytes.size(), &k))
      return *err = r.err, false;
    f.body.resize(k);
    for (ir::Insn& i : f.body) {
      uint8_t op, service;
      if (!r.U8(&op) || !r.U8(&service) || !r.I32(&i.rd) || !r.I32(&i.rs) || !r.I64(&i.imm) || !r.Str(&i.target) ||
          !r.I32(&i.line))
        return *err = r.err, false;
      if (op > static_cast<uint8_t>(ir::Op::kAddrSlot)) return *err = "operation " + std::to_string(op), false;
      if (service > static_cast<uint8_t>(ir::Service::kCount)) return *err = "service " + std::to_string(service), false;
      i.op = static_cast<ir::Op>(op), i.service = static_cast<ir::Service>(service);
    }
  }
  if (!r.Done()) return *err = r.err, false;
  *out = std::move(p);
  return true;
}

std::string EncodeRequest(Kind kind, const Request& q) {
  Writer w;
  w.Reserve(64 + q.program.size() + q.ir.size() + q.keep.size() +
            ((q.flags & kEmitted) ? 1024 + q.emitted.code.size() + 64 * q.emitted.table.insns.size() : 0));
  w.U8(q.settings), w.U8(q.flags);
  w.Str(q.keep), w.Str(q.mutation), w.Str(q.program), w.Str(q.ir), w.Str(q.main);
  w.U32(q.armed);
  w.U32(static_cast<uint32_t>(q.then.size()));
  for (const harness::ArmPoint& p : q.then) w.U32(p.off), w.U8(static_cast<uint8_t>(p.src));
  if (q.flags & kEmitted) {
    PutEnv(w, q.env);
    w.Bytes(q.emitted.code.data(), q.emitted.code.size());
    w.U32(q.emitted.goexit);
    PutTable(w, q.emitted.table);
  }
  return w.Frame(verdict::kRequestMagic, verdict::kVersion, kind);
}

bool DecodeRequest(std::string_view payload, Request* out, std::string* err) {
  Reader r(payload);
  Request q;
  uint32_t n = 0;
  if (!r.U8(&q.settings) || !r.U8(&q.flags) || !r.Str(&q.keep) || !r.Str(&q.mutation) || !r.Str(&q.program) ||
      !r.Str(&q.ir) || !r.Str(&q.main) || !r.U32(&q.armed) || !Count(r, 5, payload.size(), &n))
    return *err = r.err, false;
  if (q.flags & ~kFlagsMask) return *err = "flags 0x" + std::to_string(q.flags) + " has reserved bits set", false;
  q.then.resize(n);
  for (harness::ArmPoint& p : q.then) {
    uint8_t src;
    if (!r.U32(&p.off) || !r.U8(&src)) return *err = r.err, false;
    if (src >= harness::kRequestSources) return *err = "request source " + std::to_string(src), false;
    p.src = static_cast<harness::RequestSource>(src);
  }
  if ((q.flags & kEmitted) && (!GetEnv(r, &q.env) || !GetBytes(r, &q.emitted.code) || !r.U32(&q.emitted.goexit) ||
                               !GetTable(r, payload.size(), &q.emitted.table)))
    return *err = r.err, false;
  if (!r.Done()) return *err = r.err, false;
  *out = std::move(q);
  return true;
}

std::string EncodeLoaded(const Loaded& l, const FuncTable* table) {
  Writer w;
  w.U8(l.ok), w.Str(l.error), w.U64(l.code_base), w.U32(static_cast<uint32_t>(l.tier));
  w.U8(l.has_env);
  if (l.has_env) PutEnv(w, l.env);
  PutStrings(w, l.given_up);
  if (l.ok) PutTable(w, table ? *table : l.table);
  return w.Frame(verdict::kResponseMagic, verdict::kVersion, kLoaded);
}

bool DecodeLoaded(std::string_view payload, Loaded* out, std::string* err) {
  Reader r(payload);
  Loaded l;
  if (!r.Bool(&l.ok) || !r.Str(&l.error) || !r.U64(&l.code_base) || !r.I32(&l.tier) || !r.Bool(&l.has_env) ||
      (l.has_env && !GetEnv(r, &l.env)) || !GetStrings(r, payload.size(), &l.given_up) ||
      (l.ok && !GetTable(r, payload.size(), &l.table)) || !r.Done())
    return *err = r.err, false;
  *out = std::move(l);
  return true;
}

std::string EncodeRan(const Ran& x) {
  Writer w;
  size_t stacks = 0;
  for (const harness::FrameImage& f : x.frames) stacks += f.stack.size() + 96;
  w.Reserve(256 + x.events.size() * sizeof(Event) + x.end.globals.size() * 8 + x.end.vdump.size() +
            x.save.frame.size() + x.save.xstate.size() + stacks);
  w.U8(x.ok), w.Str(x.error), w.U8(static_cast<uint8_t>(x.source)), w.U64(x.code_base);
  w.U32(static_cast<uint32_t>(x.tier)), w.U8(x.code), w.U8(x.has_env);
  if (x.has_env) PutEnv(w, x.env);
  PutStrings(w, x.given_up);
  w.U64(x.dropped);
  w.U32(static_cast<uint32_t>(x.events.size()));
  w.Bytes(x.events.data(), x.events.size() * sizeof(Event));
  if (x.ok) {
    w.U32(static_cast<uint32_t>(x.end.globals.size()));
    for (uint64_t g : x.end.globals) w.U64(g);
    w.Bytes(x.end.vdump.data(), x.end.vdump.size());
  }
  PutSave(w, x.save);
  w.U32(static_cast<uint32_t>(x.frames.size()));
  for (const harness::FrameImage& f : x.frames) PutFrame(w, f);
  return w.Frame(verdict::kResponseMagic, verdict::kVersion, kRan);
}

bool DecodeRan(std::string_view payload, Ran* out, std::string* err) {
  Reader r(payload);
  Ran x;
  uint8_t src, code;
  uint32_t n;
  std::string_view events;
  if (!r.Bool(&x.ok) || !r.Str(&x.error) || !r.U8(&src) || !r.U64(&x.code_base) || !r.I32(&x.tier) ||
      !r.U8(&code) || !r.Bool(&x.has_env) || (x.has_env && !GetEnv(r, &x.env)) ||
      !GetStrings(r, payload.size(), &x.given_up) || !r.U64(&x.dropped) ||
      !r.U32(&n) || !r.View(&events))
    return *err = r.err, false;
  if (src >= harness::kRequestSources) return *err = "request source " + std::to_string(src), false;
  if (code > kNotLoaded) return *err = "where the code came from: " + std::to_string(code), false;
  x.code = static_cast<CodeFrom>(code);
  x.source = static_cast<harness::RequestSource>(src);
  if (events.size() != static_cast<size_t>(n) * sizeof(Event))
    return *err = std::to_string(n) + " events in " + std::to_string(events.size()) + " bytes", false;
  x.events.resize(n);
  if (n > 0) memcpy(x.events.data(), events.data(), events.size());
  if (x.ok) {
    if (!Count(r, 8, payload.size(), &n)) return *err = r.err, false;
    x.end.globals.resize(n);
    for (uint64_t& g : x.end.globals)
      if (!r.U64(&g)) return *err = r.err, false;
    if (!GetBytes(r, &x.end.vdump)) return *err = r.err, false;
  }
  if (!GetSave(r, &x.save) || !Count(r, 58, payload.size(), &n)) return *err = r.err, false;
  x.frames.resize(n);
  for (harness::FrameImage& f : x.frames)
    if (!GetFrame(r, &f)) return *err = r.err, false;
  if (!r.Done()) return *err = r.err, false;
  *out = std::move(x);
  return true;
}

std::string EncodeRefused(std::string_view why) {
  Writer w;
  w.Str(why);
  return w.Frame(verdict::kResponseMagic, verdict::kVersion, kRefused);
}

// --- the executor ------------------------------------------------------------

namespace {
// The options of a settings byte under a mutation, made once each.
const RuntimeOptions* OptionsFor(uint8_t settings, const std::string& mutation, std::string* err) {
  static auto* made = new std::map<std::pair<uint8_t, std::string>, RuntimeOptions>;
  static std::mutex mu;  // (the driver's threads; an element, once made, is never moved)
  std::lock_guard<std::mutex> lk(mu);
  auto key = std::make_pair(settings, mutation);
  auto it = made->find(key);
  if (it != made->end()) return &it->second;
  RuntimeOptions o = oracle::CaseOptions(settings);
  if (!mutation.empty()) {
    const harness::MutationDef* m = harness::FindMutation(mutation);
    if (m == nullptr) return *err = "no mutation " + mutation, nullptr;
    m->apply(o.mutations);
  }
  return &made->emplace(key, std::move(o)).first->second;
}
// A request's program: the last 256 by their text, each read from its
// fields (or parsed, without them) once.
std::shared_ptr<const ir::Program> ProgramOf(const std::string& text, const std::string& fields, std::string* err) {
  static auto* known = new std::unordered_map<std::string, std::shared_ptr<const ir::Program>>;
  auto it = known->find(text);
  if (it != known->end()) return it->second;
  std::shared_ptr<const ir::Program> prog;
  if (fields.empty()) {
    prog = oracle::CaseProgram(text, err);
    if (prog == nullptr) return *err = "the program does not parse: " + *err, nullptr;
  } else {
    auto p = std::make_shared<ir::Program>();
    if (!DecodeProgram(fields, p.get(), err)) return *err = "the program's fields do not read: " + *err, nullptr;
    prog = std::move(p);
  }
  if (known->size() >= 256) known->clear();
  known->emplace(text, prog);
  return prog;
}
}  // namespace

std::string Answer(uint16_t kind, std::string_view payload) {
  Request q;
  std::string err;
  if (kind != kLoad && kind != kRun)
    return EncodeRefused("request kind " + std::to_string(kind) + " (" + std::to_string(kLoad) + ", load, or " +
                         std::to_string(kRun) + ", run)");
  if (!DecodeRequest(payload, &q, &err)) return EncodeRefused("a malformed request: " + err);
  if (kind == kLoad && (q.flags & kEmitted)) return EncodeRefused("an emitted program comes with a run, not a load");
  const RuntimeOptions* opts = OptionsFor(q.settings, q.mutation, &err);
  if (opts == nullptr) return EncodeRefused(err);
  harness::KeepAs keep;
  if (!q.keep.empty()) keep = {std::move(q.keep), q.program};  // (copied: the program may be read below)
  const auto src = static_cast<harness::RequestSource>(q.settings >> 6);
  std::unique_ptr<harness::RuntimeUnderTest> rt =
      harness::NewReferenceRuntime(*opts, src, (q.flags & kSysmonClock) != 0, std::move(keep));
  // The runtime's environment goes back with a load, and with a run that
  // found the program new to the runtime (the driver's emission installed,
  // or the executor's own, against an environment the driver may not know).
  const CodeFrom had = rt->HasProgram() ? kHad : kEmittedThere;
  EmitEnv env;
  std::string why;
  const bool has_env = (kind == kLoad || had != kHad) && rt->EmitEnvironment(&env, &why);
  CodeFrom from = had;
  if (had != kHad && (q.flags & kEmitted)) {
    q.env.port = &NativePort();
    if (has_env && SameEmitEnv(q.env, env)) from = kInstalled;
  }
  // The program is read (from its fields, or parsed) only where the
  // runtime emits it: a kept runtime that has it, or a run that brings it
  // emitted, reads nothing of it.
  bool loaded = false;
  std::string load_err;
  if (from == kEmittedThere) {
    std::shared_ptr<const ir::Program> prog = ProgramOf(q.program, q.ir, &err);
    if (prog == nullptr) return EncodeRefused(err);
    loaded = rt->Load(*prog, &load_err);
  } else if (from == kInstalled) {
    loaded = rt->LoadEmitted(q.env, std::move(q.emitted), &load_err);
  } else {
    static const ir::Program unread;  // (HasProgram: Load reads nothing of it)
    loaded = rt->Load(unread, &load_err);
  }
  if (kind == kLoad) {
    Loaded l;
    l.ok = loaded, l.error = std::move(load_err);
    l.has_env = has_env, l.env = env;
    l.code_base = rt->code_base();
    l.tier = rt->xstate_tier();
    std::shared_ptr<const FuncTable> table = l.ok ? rt->shared_table() : nullptr;
    rt.reset();  // (kept, or given up: said below)
    l.given_up = harness::TakeGivenUpOptions();
    return EncodeLoaded(l, table.get());
  }
  Ran x;
  x.has_env = has_env, x.env = env;
  x.code = loaded ? from : kNotLoaded;
  x.error = std::move(load_err);
  x.ok = loaded && (!(q.flags & kArmed) || rt->ArmAt(q.armed, &x.error)) &&
         (!(q.flags & kArmThen) || rt->ArmThen(q.then, &x.error)) && rt->Run(q.main, &x.error);
  x.source = rt->request_source();
  x.code_base = rt->code_base();
  x.tier = rt->xstate_tier();
  x.events = rt->events();
  x.dropped = rt->events_dropped();
  if (x.ok) x.end = rt->end_state();
  x.save = rt->save_area();
  for (size_t i = 0; i <= q.then.size(); i++) x.frames.push_back(rt->trap_frame(i));
  rt.reset();  // (reset and kept, or given up: said below)
  x.given_up = harness::TakeGivenUpOptions();
  return EncodeRan(x);
}

int Serve(int in, int out) {
  for (;;) {
    verdict::Header h;
    std::string payload, err;
    bool bad_header = false;
    if (!verdict::ReadFrame(in, verdict::kRequestMagic, &h, &payload, &err, -1, &bad_header, kMaxCasePayload)) {
      if (!bad_header) return 0;  // end of file
      std::string f = EncodeRefused("not a request frame: " + err);
      verdict::WriteFull(out, f.data(), f.size());
      return 3;
    }
    std::string f = Answer(h.kind, payload);
    if (!verdict::WriteFull(out, f.data(), f.size())) return 1;
  }
}

// --- the driver --------------------------------------------------------------

namespace {

[[noreturn]] void Die(const std::string& why) {
  fprintf(stderr, "preempt_fuzz: %s\n", why.c_str());
  exit(2);
}

// The function tables the driver has, by what makes one (the settings,
// the mutation, the kept runtime's options and the program): a case's
// reference loads once, the runtimes of its later cases load without
// asking (a program the executor cannot load is never kept here, so its
// every Load asks and fails as it would in-process). Keyed by the kept
// runtime too: the table's instruction lengths depend on the runtime's
// addresses on ports that materialize an address in as few instructions
// as it needs (arm64's MovImm).
struct TableKey {
  uint8_t settings;
  std::string mutation, keep, program;
  bool operator<(const TableKey& o) const {
    if (settings != o.settings) return settings < o.settings;
    if (mutation != o.mutation) return mutation < o.mutation;
    return keep != o.keep ? keep < o.keep : program < o.program;
  }
};
// A program the driver emitted, not yet sent: it goes with the program's
// next run (once the executor answers a run of it, it has the program).
struct Pending {
  EmitEnv env;
  Emitted emitted;  // (its table as emitted, unedited)
};
struct Known {
  std::shared_ptr<const FuncTable> table;
  int tier = -1;
  std::shared_ptr<const Pending> pending;
};
struct Tables {
  std::mutex mu;
  std::map<TableKey, Known> known;
  // The environment the executor's kept runtime of each options key
  // (Request::keep) reported last: a program new to it is emitted here.
  std::unordered_map<std::string, EmitEnv> envs;
  const PortInfo* port = nullptr;  // the executor's
  // Each program's fields (Request::ir), encoded once: by its text.
  std::unordered_map<std::string, std::shared_ptr<const std::string>> fields;
};

// What the driver's loads were, for its summary (LoadSummary).
std::atomic<int64_t> g_asked{0}, g_emitted_here{0}, g_installed{0}, g_emitted_there{0}, g_given_up{0};

// A runtime in the executor, as RunCase sees it.
class RemoteRuntime : public harness::RuntimeUnderTest {
 public:
  RemoteRuntime(Channel* d, std::shared_ptr<const Request> base, Tables* tables)
      : d_(d),
        base_(std::move(base)),
        tables_(tables),
        key_{base_->settings, base_->mutation, base_->keep, base_->program} {}
  bool Load(const ir::Program& prog, std::string* err) override {
    {
      std::lock_guard<std::mutex> lk(tables_->mu);
      auto it = tables_->known.find(key_);
      if (it != tables_->known.end()) {
        table_ = it->second.table, tier_ = it->second.tier;
        return true;
      }
    }
    Known k;
    if (auto p = std::make_shared<Pending>(); EmitHere(prog, &p->env, &p->emitted)) {
      // Edited as the executor's runtime edits it (Runtime::EditTable).
      FuncTable t = p->emitted.table;
      std::string no;
      if (const RuntimeOptions* o = OptionsFor(base_->settings, base_->mutation, &no)) Runtime::EditTable(*o, &t);
      k.table = std::make_shared<const FuncTable>(std::move(t));
      k.tier = p->env.xtier;
      k.pending = std::move(p);
      g_emitted_here.fetch_add(1);
    } else {
      uint16_t kind;
      std::string payload, why;
      Loaded l;
      d_->Ask(EncodeRequest(kLoad, *base_), &kind, &payload);
      if (kind != kLoaded || !DecodeLoaded(payload, &l, &why)) Bad(kind, payload, why);
      g_asked.fetch_add(1);
      code_base_ = l.code_base, tier_ = l.tier;
      Forget(l.given_up);
      Learn(l.has_env, l.env);
      if (!l.ok) return *err = l.error, false;
      k.table = std::make_shared<const FuncTable>(std::move(l.table));
      k.tier = l.tier;
    }
    table_ = k.table, tier_ = k.tier;
    std::lock_guard<std::mutex> lk(tables_->mu);
    if (tables_->known.size() >= 256) tables_->known.clear();
    tables_->known.emplace(key_, std::move(k));
    return true;
  }
  // Emits `prog` for the executor's port against the environment its kept
  // runtime of these options reported, when there is one; false (the
  // executor emits) otherwise, or when the emission fails (the executor
  // then says why, as in-process).
  bool EmitHere(const ir::Program& prog, EmitEnv* env, Emitted* out) {
    if (base_->keep.empty()) return false;
    {
      std::lock_guard<std::mutex> lk(tables_->mu);
      auto it = tables_->envs.find(base_->keep);
      if (it == tables_->envs.end()) return false;
      *env = it->second;
    }
    env->port = tables_->port;
    std::unique_ptr<Lowerer> low = NewLowerer(tables_->port->name);
    std::string why;
    return low != nullptr && Emit(*low, prog, *env, out, &why);
  }
  bool ArmAt(uint32_t off, std::string* err) override {
    (void)err;  // refused by the executor, at Run
    flags_ |= kArmed, armed_ = off;
    return true;
  }
  bool ArmThen(const std::vector<harness::ArmPoint>& then, std::string* err) override {
    (void)err;
    flags_ |= kArmThen, then_ = then;
    return true;
  }
  harness::RequestSource request_source() const override {
    return static_cast<harness::RequestSource>(base_->settings >> 6);
  }
  bool Run(const std::string& main, std::string* err) override {
    Request q;
    q.settings = base_->settings, q.flags = static_cast<uint8_t>(base_->flags | flags_);
    q.keep = base_->keep, q.mutation = base_->mutation, q.program = base_->program, q.ir = base_->ir, q.main = main;
    q.armed = armed_, q.then = then_;
    std::shared_ptr<const Pending> pending;
    {
      std::lock_guard<std::mutex> lk(tables_->mu);
      auto it = tables_->known.find(key_);
      if (it != tables_->known.end()) pending = it->second.pending;
    }
    // (With its code the program's fields are not read: the executor
    // installs the code, or the driver stops below.)
    if (pending) q.flags |= kEmitted, q.env = pending->env, q.emitted = pending->emitted, q.ir.clear();
    uint16_t kind;
    std::string payload, why;
    d_->Ask(EncodeRequest(kRun, q), &kind, &payload);
    if (kind != kRan || !DecodeRan(payload, &ran_, &why)) Bad(kind, payload, why);
    if (ran_.code == kInstalled && !pending) Bad(kind, payload, "it installed an emission it was not sent");
    if (ran_.code == kEmittedThere && pending)
      Bad(kind, payload,
          "the program emitted here went to a runtime it was not emitted for (one the executor gave up without "
          "saying so): the case's function table may not be the code's");
    ran_once_ = true;
    Forget(ran_.given_up);
    if (ran_.code == kInstalled) g_installed.fetch_add(1);
    if (ran_.code == kEmittedThere) g_emitted_there.fetch_add(1);
    if (ran_.code != kHad) Learn(ran_.has_env, ran_.env);
    if (pending && ran_.code != kNotLoaded) {
      // The executor has the program now: later runs bring no code.
      std::lock_guard<std::mutex> lk(tables_->mu);
      auto it = tables_->known.find(key_);
      if (it != tables_->known.end() && it->second.pending == pending) it->second.pending.reset();
    }
    if (!ran_.ok) *err = ran_.error;
    return ran_.ok;
  }
  const FuncTable& table() const override {
    static const FuncTable empty;
    return table_ ? *table_ : empty;
  }
  std::shared_ptr<const FuncTable> shared_table() const override {
    return table_ ? table_ : std::make_shared<const FuncTable>();
  }
  uintptr_t code_base() const override { return static_cast<uintptr_t>(ran_once_ ? ran_.code_base : code_base_); }
  int xstate_tier() const override { return ran_once_ ? ran_.tier : tier_; }
  std::vector<Event> events() const override { return ran_.events; }
  size_t events_dropped() const override { return static_cast<size_t>(ran_.dropped); }
  harness::EndState end_state() const override { return ran_.end; }
  harness::SaveAreaImage save_area() const override { return ran_.save; }
  harness::FrameImage trap_frame(size_t point) const override {
    return point < ran_.frames.size() ? ran_.frames[point] : harness::FrameImage{};
  }

 private:
  [[noreturn]] void Bad(uint16_t kind, const std::string& payload, const std::string& why) {
    std::string what = why;
    if (kind == kRefused) {
      Reader r(payload);
      std::string said;
      what = r.Str(&said) ? "it refused the request: " + said : "a refusal that does not read: " + r.err;
    }
    fprintf(stderr, "==safepoint-fuzz== ERROR: the case executor for %s answered wrongly (kind %u): %s\n",
            d_->config().c_str(), kind, what.c_str());
    abort();
  }
  // Kept runtimes the executor gave up: their environments, and the tables
  // the driver had for them (emitted against those environments, or sent
  // by them), are forgotten. The tables RunCase holds for such a program
  // are its own (oracle/preempt_case.cc).
  void Forget(const std::vector<std::string>& given_up) {
    if (given_up.empty()) return;
    g_given_up.fetch_add(static_cast<int64_t>(given_up.size()));
    std::lock_guard<std::mutex> lk(tables_->mu);
    for (const std::string& k : given_up) {
      tables_->envs.erase(k);
      for (auto it = tables_->known.begin(); it != tables_->known.end();)
        it = it->first.keep == k ? tables_->known.erase(it) : std::next(it);
    }
  }
  // The environment the executor said its runtime of these options has
  // (none: it cannot say, and the executor emits).
  void Learn(bool has_env, const EmitEnv& env) {
    if (base_->keep.empty()) return;
    std::lock_guard<std::mutex> lk(tables_->mu);
    if (has_env)
      tables_->envs[base_->keep] = env;
    else
      tables_->envs.erase(base_->keep);
  }
  Channel* d_;
  std::shared_ptr<const Request> base_;
  Tables* tables_;
  const TableKey key_;
  std::shared_ptr<const FuncTable> table_;
  int tier_ = -1;
  uint64_t code_base_ = 0;
  uint8_t flags_ = 0;
  uint32_t armed_ = 0;
  std::vector<harness::ArmPoint> then_;
  Ran ran_;
  bool ran_once_ = false;
};

}  // namespace

oracle::CaseTarget RemoteTarget(Channel* ch, const PortInfo& port) {
  oracle::CaseTarget t;
  auto tables = std::make_shared<Tables>();
  t.port = &port;
  tables->port = &port;
  t.runtimes = [ch, tables](const oracle::Case& c, bool sysmon_clock, harness::KeepAs keep) {
    auto base = std::make_shared<Request>();
    base->settings = c.settings;
    base->flags = sysmon_clock ? kSysmonClock : 0;
    base->keep = std::move(keep.options);
    base->mutation = c.mutation;
    base->program = c.program;
    std::shared_ptr<const std::string> fields;
    {
      std::lock_guard<std::mutex> lk(tables->mu);
      auto it = tables->fields.find(c.program);
      if (it != tables->fields.end()) fields = it->second;
    }
    std::string err;
    if (fields == nullptr) {
      if (std::shared_ptr<const ir::Program> p = oracle::CaseProgram(c.program, &err)) {
        fields = std::make_shared<const std::string>(EncodeProgram(*p));
        std::lock_guard<std::mutex> lk(tables->mu);
        if (tables->fields.size() >= 256) tables->fields.clear();
        tables->fields.emplace(c.program, fields);
      }
    }
    if (fields != nullptr) base->ir = *fields;
    std::shared_ptr<const Request> b = std::move(base);
    return harness::RuntimeFactory([ch, b, tables]() -> std::unique_ptr<harness::RuntimeUnderTest> {
      return std::make_unique<RemoteRuntime>(ch, b, tables.get());
    });
  };
  return t;
}

Driver::Driver(const std::string& config, const std::string& path, const std::string& runner) {
  proc_.config = config, proc_.path = path;
  std::string err;
  if (access(path.c_str(), X_OK) != 0) Die("the case executor " + path + " is not an executable file");
  if (!StartExecutor(proc_, runner, 120000, &err)) Die(err);
  port_ = FindPort(proc_.port);
  if (port_ == nullptr) Die("the case executor's port '" + proc_.port + "' is none of this build's (" + PortNames() + ")");
  target_ = RemoteTarget(this, *port_);
}

LoadCounts LoadCountsNow() {
  LoadCounts c;
  c.emitted_here = g_emitted_here.load(), c.installed = g_installed.load();
  c.asked = g_asked.load(), c.emitted_there = g_emitted_there.load(), c.given_up = g_given_up.load();
  return c;
}

std::string LoadSummary() {
  return "programs new to the executor's runtimes: " + std::to_string(g_emitted_here.load()) + " emitted here (" +
         std::to_string(g_installed.load()) + " installed with their first run), " + std::to_string(g_asked.load()) +
         " loaded there when asked (the first under its options), " + std::to_string(g_emitted_there.load()) +
         " emitted there at a run (a runtime the driver had no environment of, or had lost the program); " +
         std::to_string(g_given_up.load()) + " kept runtimes given up by the executor";
}

Driver::~Driver() {
  StopExecutor(proc_, false);
  fprintf(stderr, "preempt_fuzz: %s\n", LoadSummary().c_str());
}

void Driver::Ask(const std::string& frame, uint16_t* kind, std::string* payload) {
  std::string err;
  verdict::Header h;
  // The stall watchdog (fuzz/artifacts.h) says a hung run first; this
  // deadline is for an executor that no longer answers at all.
  const int deadline_ms = ((StallLimitSeconds() > 0 ? StallLimitSeconds() : 1200) + 60) * 1000;
  if (verdict::WriteFull(proc_.to, frame.data(), frame.size()) &&
      verdict::ReadFrame(proc_.from, verdict::kResponseMagic, &h, payload, &err, deadline_ms, nullptr,
                         kMaxCasePayload)) {
    *kind = h.kind;
    return;
  }
  if (err.empty()) err = "its input is closed";
  std::string how = StopExecutor(proc_, true);
  fprintf(stderr,
          "==safepoint-fuzz== ERROR: the case executor for %s ended during a run [%s]: %s (%s); what it said last is "
          "above\n",
          proc_.config.c_str(), proc_.port.c_str(), err.c_str(), how.empty() ? "not running" : how.c_str());
  abort();
}

}  // namespace safepoint::fuzz::cases
