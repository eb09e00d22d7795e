#include "oracle/frame_table.h"

#include <algorithm>
#include <cstdio>

#include "core/hex.h"

namespace safepoint::oracle {

namespace {

// Deeper than any goroutine here goes; a walk that has not ended by then is
// going round in a cycle of bad rows.
constexpr size_t kMaxFrames = 100000;

enum class Walked { kOk, kWrong, kUnjudged };

struct Walk {
  Walked how = Walked::kOk;
  std::string why;
  size_t frames = 0;
  std::vector<FrameCheck::Frame> walk;
  size_t frame = 0;  // where it went wrong
  const FuncInfo* f = nullptr;
  uint32_t off = 0;
  FuncInfo::SpState st{0, 0, false};
};

std::string Where(const FuncInfo& f, uint32_t off) {
  char b[32];
  snprintf(b, sizeof b, "+0x%x", off - f.entry);
  return f.name + b;
}

class Walker {
 public:
  Walker(const FuncTable& t, const harness::FrameImage& img) : t_(t), img_(img) {}

  // A return site: the instruction before it is a call the table lists.
  bool ReturnSite(uintptr_t ra) const {
    if (ra <= img_.code_base) return false;
    uintptr_t rel = ra - img_.code_base;
    if (rel > UINT32_MAX) return false;
    uint32_t off = static_cast<uint32_t>(rel);
    if (const FuncInfo* c = t_.Find(off - 1); c != nullptr && !c->return_sites.empty())
      return std::binary_search(c->return_sites.begin(), c->return_sites.end(), off);
    auto it = std::lower_bound(t_.insns.begin(), t_.insns.end(), off);
    if (it == t_.insns.begin()) return false;
    uint32_t call = *(it - 1);
    const FuncInfo* f = t_.Find(call);
    if (f == nullptr) return false;
    if (!(it != t_.insns.end() && *it == off) && off != f->end) return false;
    return std::find(f->call_sites.begin(), f->call_sites.end(), call) != f->call_sites.end();
  }

  // The walk from (pc, sp), the first frame's row replaced by `first` when
  // given (the search for the machine's row).
  Walk Run(uintptr_t pc, const FuncInfo::SpState* first) const {
    Walk w;
    uintptr_t sp = img_.sp;
    for (size_t depth = 0; depth < kMaxFrames; depth++) {
      w.frame = depth;
      if (pc < img_.code_base || pc - img_.code_base > UINT32_MAX ||
          (w.f = t_.Find(static_cast<uint32_t>(pc - img_.code_base))) == nullptr) {
        w.f = nullptr;
        return Wrong(&w, depth == 0 ? "the PC " + Hex(pc) + " is in no function of the table"
                                    : "frame " + std::to_string(depth) + "'s return PC " + Hex(pc) +
                                          " is in no function of the table");
      }
      w.off = static_cast<uint32_t>(pc - img_.code_base);
      w.walk.push_back({pc, sp, w.f->name});
      if (depth == 0 && img_.goexit >= img_.code_base && w.f == t_.Find(static_cast<uint32_t>(img_.goexit - img_.code_base))) {
        // Stopped in goexit itself: the goroutine's first frame has
        // returned, and nothing is left to walk but its frame base.
        w.frames = 1;
        if (sp == img_.base) return w;
        return Wrong(&w, Where(*w.f, w.off) + ": SP " + Hex(sp) + " in goexit, the goroutine's frame base is " +
                             Hex(img_.base));
      }
      w.st = depth == 0 && first != nullptr ? *first : w.f->SpAt(w.off);
      const FuncInfo::SpState& st = w.st;
      if (st.delta < 0) return Wrong(&w, Where(*w.f, w.off) + ": SP " + std::to_string(-st.delta) + " above its entry SP");
      const uintptr_t at = sp + static_cast<uintptr_t>(st.delta);
      uintptr_t ra = 0, caller_sp = 0;
      std::string ra_place;
      if (img_.has_lr) {
        caller_sp = at;
        if (st.lr_saved) {
          if (!img_.Read(sp, &ra)) return Unjudged(&w, "the stack image ends below " + Hex(sp));
          ra_place = "0(SP)";
        } else if (depth > 0) {
          return Wrong(&w, Where(*w.f, w.off) + ", stopped at a call: the table keeps its return address in the "
                                                "link register, which the call overwrote");
        } else {
          ra = img_.lr;
          ra_place = "the link register";
        }
        // Saved by the table's account, but the link register still holds
        // a return address into another function and the slot something
        // else: the store has not happened yet (a call in the body would
        // have left a return site of this function in the register).
        if (depth == 0 && st.lr_saved && img_.lr != ra && ReturnSite(img_.lr) &&
            t_.Find(static_cast<uint32_t>(img_.lr - img_.code_base)) != w.f)
          return Wrong(&w, Where(*w.f, w.off) + ": the table has the return address saved at 0(SP), which holds " +
                               Hex(ra) + "; the link register still holds the return address " + Hex(img_.lr));
      } else {
        if (!img_.Read(at, &ra)) return Unjudged(&w, "the stack image ends below " + Hex(at + 8));
        caller_sp = at + 8;
        ra_place = "SP+" + std::to_string(st.delta);
      }
      w.frames = depth + 1;
      if (ra == img_.goexit) {
        if (caller_sp == img_.base) return w;
        return Wrong(&w, Where(*w.f, w.off) + ": the walk returns to goexit with SP " + Hex(caller_sp) +
                             ", the goroutine's frame base is " + Hex(img_.base));
      }
      if (!ReturnSite(ra))
        return Wrong(&w, Where(*w.f, w.off) + ": the return address the table places at " + ra_place + ", " + Hex(ra) +
                             ", is no return site");
      if (caller_sp >= img_.base)
        return Wrong(&w, Where(*w.f, w.off) + ": the caller's SP " + Hex(caller_sp) +
                             " is at or above the goroutine's frame base " + Hex(img_.base));
      pc = ra;
      sp = caller_sp;
    }
    return Wrong(&w, "the walk did not end within " + std::to_string(kMaxFrames) + " frames");
  }

 private:
  static Walk Wrong(Walk* w, std::string why) {
    w->how = Walked::kWrong;
    w->why = std::move(why);
    return *w;
  }
  static Walk Unjudged(Walk* w, std::string why) {
    w->how = Walked::kUnjudged;
    w->why = std::move(why);
    return *w;
  }
  const FuncTable& t_;
  const harness::FrameImage& img_;
};

std::string Row(int delta, bool has_lr, bool lr_saved) {
  std::string s = "SP " + std::to_string(delta) + " below the entry SP";
  if (has_lr) s += lr_saved ? ", return address saved at 0(SP)" : ", return address in the link register";
  return s;
}

}  // namespace

FrameCheck CheckFrameTable(const FuncTable& table, const harness::FrameImage& img, uintptr_t pc) {
  FrameCheck c;
  if (!img.seen) {
    c.unjudged = "no frame image";
    return c;
  }
  if (img.sp < img.stack_lo || img.sp >= img.stack_hi || img.base > img.stack_hi || img.sp > img.base) {
    c.unjudged = "the trap's SP " + Hex(img.sp) + " is not on the goroutine's stack below its frame base";
    return c;
  }
  Walker walker(table, img);
  Walk w = walker.Run(pc, nullptr);
  c.frames = w.frames;
  c.walk = w.walk;
  if (w.how == Walked::kUnjudged) {
    c.unjudged = w.why;
    return c;
  }
  c.judged = true;
  if (w.how == Walked::kOk) return c;
  c.frame = w.frame;
  c.func = w.f ? w.f->name : "?";
  c.func_off = w.f ? w.off - w.f->entry : 0;
  c.table_delta = w.st.delta;
  c.table_lr_saved = w.st.lr_saved;
  c.problem = w.why;
  // The machine's row at the first frame: another row from which the walk
  // ends at the frame base through return sites, visiting at least the
  // frames the table's walk visited (a row that jumps straight to an outer
  // frame's goexit skips frames: it is not the machine's), the longest walk
  // if several do. Searched as far as a frame goes (kSearchBytes).
  const FuncInfo* f0 = pc >= img.code_base ? table.Find(static_cast<uint32_t>(pc - img.code_base)) : nullptr;
  if (f0 == nullptr) return c;
  const uint32_t off0 = static_cast<uint32_t>(pc - img.code_base);
  const FuncInfo::SpState row0 = f0->SpAt(off0);
  constexpr uintptr_t kSearchBytes = 64 * 1024;
  const uintptr_t room = std::min<uintptr_t>({img.base - img.sp + 1, img.stack.size(), kSearchBytes});
  FuncInfo::SpState best{0, -1, false};
  size_t best_frames = w.frame + 1;
  for (int flip = 0; flip < (img.has_lr ? 2 : 1); flip++) {
    for (uintptr_t d = 0; d < room; d += 8) {
      FuncInfo::SpState alt{row0.from, static_cast<int>(d), img.has_lr && (flip != 0) != row0.lr_saved};
      if (alt.delta == row0.delta && alt.lr_saved == row0.lr_saved) continue;
      Walk a = walker.Run(pc, &alt);
      if (a.how != Walked::kOk || a.frames < best_frames || (best.delta >= 0 && a.frames == best_frames)) continue;
      best = alt;
      best_frames = a.frames;
    }
  }
  if (best.delta >= 0) {
    c.frame = 0;
    c.func = f0->name;
    c.func_off = off0 - f0->entry;
    c.table_delta = row0.delta;
    c.table_lr_saved = row0.lr_saved;
    c.machine_delta = best.delta;
    c.machine_lr_saved = best.lr_saved;
    c.problem = Where(*f0, off0) + " (pc " + Hex(pc) + "): the table has " + Row(row0.delta, img.has_lr, row0.lr_saved) +
                ", the machine " + Row(best.delta, img.has_lr, best.lr_saved) + " (SP " + Hex(img.sp) +
                "; by the table: " + w.why + ")";
    return c;
  }
  c.problem += " (pc " + Hex(pc) + ", SP " + Hex(img.sp) + "; no other row at " + Where(*f0, off0) +
               " ends the walk at the frame base)";
  return c;
}

}  // namespace safepoint::oracle
