# A nosplit function: no stack check, and no asynchronous safe point except
# at its calls.
#   ./safepoint sweep --program=examples/nosplit.sp
# expect: g[6] = 7
func main.main frame=16
  movi r0, 2
  call main.nosp
  st g[6], r0
  ret
end
func main.nosp nosplit
  addi r0, 2
  call main.leaf
  ret
end
func main.leaf
  muli r0, 2
  addi r0, -1
  ret
end
