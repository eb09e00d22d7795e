// stack: deep recursion on fresh goroutines, so the stack grows from its
// first few kilobytes through morestack and copystack many times (every
// frame moves, pointers into the stack are adjusted), then returns and lets
// the collector shrink it back (runtime.GC shrinks idle stacks).
package main

import (
	"fmt"
	"runtime"
)

const (
	depth  = 2500 // frames per descent
	rounds = 4    // descents, each on a fresh goroutine
)

//go:noinline
func down(n int, p *uint64) uint64 {
	var pad [24]uint64 // a frame of about 250 bytes
	pad[n%24] = uint64(n)
	*p += uint64(n) // a pointer into a caller's frame, moved with the stack
	if n == 0 {
		return *p
	}
	return across(n-1, &pad[n%24]) + pad[n%24]
}

//go:noinline
func across(n int, p *uint64) uint64 {
	var local uint64 = uint64(n) * 3
	r := down(n, &local)
	*p += local & 0xff
	return r ^ uint64(n)
}

//go:noinline
func leafy(n int) int { return n*2 + 1 }

// small recursion without a large frame, inlined helpers on purpose.
func half(n int) int { return n / 2 }

//go:noinline
func fib(n int) int {
	if n < 2 {
		return leafy(n)
	}
	return fib(n-1) + fib(half(2*n)-2)
}

func main() {
	var total uint64
	for r := 0; r < rounds; r++ {
		done := make(chan uint64)
		go func(r int) {
			var base uint64 = uint64(r)
			done <- down(depth, &base) + base + uint64(fib(16))
		}(r)
		total += <-done
		runtime.GC() // the goroutine is gone; the next starts small again
	}
	// The same goroutine grows, shrinks and grows again.
	grow := make(chan int)
	res := make(chan uint64)
	go func() {
		var t uint64
		for n := range grow {
			var base uint64
			t += down(n, &base)
			runtime.GC() // parks here while its own stack is scanned: a parked stack may shrink
		}
		res <- t
	}()
	for r := 0; r < rounds; r++ {
		grow <- depth
		grow <- 10
	}
	close(grow)
	total += <-res
	fmt.Printf("stack total=%d\n", total)
}
