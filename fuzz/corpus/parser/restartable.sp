# Loads and stores of globals and large constants: on ports with REGTMP
# these are expanded through it, and a preemption inside is resumed at the
# sequence's start (arm64, loong64) or refused (riscv64, as Go's assembler
# marks them unsafe). Run it through the sweep to see every decision:
#   ./safepoint sweep --arch=arm64 --program=examples/restartable.sp
# expect: g[4] = 200009
func main.main frame=16
  movi r1, 9
  st g[3], r1
  ld r2, g[3]
  addi r2, 200000
  st g[4], r2
  ret
end
