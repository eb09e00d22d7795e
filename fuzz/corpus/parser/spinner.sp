# A goroutine that spins without a call (no synchronous safe point) while
# main sleeps and returns: the program ends when main.main returns, as in
# Go, whatever the spinner does, at every GOMAXPROCS.
#   ./safepoint run --gomaxprocs=2 examples/spinner.sp
# expect: g[1] = 1
func main.main
  go main.spin
  sleep 1000000
  movi r1, 1
  st g[1], r1
  ret
end
func main.spin
loop:
  addi r2, 1
  jmp loop
end
