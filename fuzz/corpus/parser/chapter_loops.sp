# The chapter's three loops (9.7.1), each in a goroutine of its own, while
# main sleeps: a loop calling a non-leaf function (a synchronous safe point
# in every call), one calling a small-frame leaf (none), one without calls
# (none). With asynchronous preemption all three are preempted; main gets
# back on the P after its sleep and returns.
#   ./safepoint run --events examples/chapter_loops.sp
# expect: g[1] = 1
func main.main
  go main.nonleafloop
  go main.leafloop
  go main.noloop
  sleep 2000000
  movi r1, 1
  st g[1], r1
  ret
end
func main.nonleafloop
loop:
  call main.nonleaf
  jmp loop
end
func main.leafloop
loop:
  call main.leaf
  jmp loop
end
func main.noloop
loop:
  addi r1, 1
  jmp loop
end
func main.nonleaf frame=16
  call main.leaf
  ret
end
func main.leaf
  addi r0, 1
  ret
end
