# Two goroutines and a handshake: main starts a worker, waits for it, and
# reads what it stored.
#   ./safepoint run examples/handshake.sp
# expect: g[2] = 77
# expect: g[3] = 77
func main.main
  go main.worker
  wait 1
  ld r1, g[2]
  st g[3], r1
  ret
end
func main.worker
  movi r1, 77
  st g[2], r1
  handshake 1
  ret
end
