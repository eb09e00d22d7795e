// The two functions of the chapter's first experiment (9.7.1), in the IR:
// a small-frame leaf (no stack check) and a non-leaf calling it (the real
// prologue check). Shared by the experiment, the conformance suite and the
// benchmark, so they all preempt the same code.
#ifndef SAFEPOINT_RUNTIME_CHAPTER_H_
#define SAFEPOINT_RUNTIME_CHAPTER_H_

namespace safepoint {

// func leaf(x int) int { return x*3 + 1 }; func nonleaf(x int) int { return leaf(x) + 1 }
inline constexpr const char* kChapterLeafAndNonleaf = R"(
func main.nonleaf frame=16
  call main.leaf
  addi r0, 1
  ret
end
func main.leaf
  muli r0, 3
  addi r0, 1
  ret
end
)";

}  // namespace safepoint

#endif
