# The heap: a list of three objects built by one goroutine, kept only in a
# declared pointer slot (ptrs=0) while it calls, and summed at the end.
# main.churn makes garbage and runs a collection (gc, as runtime.GC): the
# garbage is freed, the list is not.
#   ./safepoint run examples/heap.sp
# expect: g[1] = 6
# expect: g[2] = 3
func main.main frame=16 ptrs=0
  movi r0, 0
  movi r5, 3
build:
  stslot 8, r5
  stslot 0, r0
  alloc 16
  ldslot r1, 0
  stm r0, 0, r1
  ldslot r5, 8
  stm r0, 8, r5
  addi r5, -1
  jnz r5, build
  stslot 0, r0
  call main.churn
  ldslot r1, 0
  movi r2, 0
  movi r3, 0
sum:
  ldm r4, r1, 8
  add r2, r4
  addi r3, 1
  ldm r1, r1, 0
  jnz r1, sum
  st g[1], r2
  st g[2], r3
  ret
end
func main.churn
  alloc 64
  alloc 32
  drop r0
  gc
  ret
end
