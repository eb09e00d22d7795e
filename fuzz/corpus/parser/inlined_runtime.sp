# A runtime function's body inlined into user code: asynchronous
# preemption is refused inside it (the innermost function is in the
# runtime package) and accepted around it.
#   ./safepoint sweep --program=examples/inlined_runtime.sp
# expect: g[5] = 3
func main.main
  movi r1, 1
  inline runtime.add
  addi r1, 1
  endinline
  addi r1, 1
  st g[5], r1
  ret
end
