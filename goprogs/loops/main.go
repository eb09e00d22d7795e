// loops: the chapter's three loops, each on its own goroutine while main
// waits on a channel: a tight loop with no calls (only asynchronous
// preemption can stop it), a loop calling a leaf (no frame, no stack check
// on most ports) and a loop calling a non-leaf (a frame, a prologue stack
// check: a cooperative preemption point at every call).
package main

import "fmt"

const (
	rounds = 4000 // calls of each loop function
	iters  = 4    // iterations of each loop per call (nonLeaf: 16000 calls)
)

//go:noinline
func tightLoop(n int, seed uint64) uint64 {
	h := seed
	for i := 0; i < n; i++ {
		h ^= uint64(i)
		h *= 1099511628211
	}
	return h
}

//go:noinline
func leaf(x uint64) uint64 {
	return x*6364136223846793005 + 1442695040888963407
}

//go:noinline
func leafLoop(n int, seed uint64) uint64 {
	h := seed
	for i := 0; i < n; i++ {
		h = leaf(h ^ uint64(i))
	}
	return h
}

//go:noinline
func nonLeaf(x uint64) uint64 {
	var pad [4]uint64 // a frame of its own
	pad[x&3] = x
	return leaf(x) ^ leaf(x>>7) ^ pad[x&3]
}

//go:noinline
func nonLeafLoop(n int, seed uint64) uint64 {
	h := seed
	for i := 0; i < n; i++ {
		h = nonLeaf(h + uint64(i))
	}
	return h
}

// mix is small enough to be inlined into main, on purpose.
func mix(a, b uint64) uint64 { return (a ^ b) * 0x9e3779b97f4a7c15 }

// onGoroutine runs f rounds times on a fresh goroutine: main hands it the
// start and waits for its result (handshakes, no sleeps).
func onGoroutine(f func(int, uint64) uint64) uint64 {
	start := make(chan uint64)
	done := make(chan uint64)
	go func() {
		s := <-start
		for r := 0; r < rounds; r++ {
			s = mix(s, f(iters, s+uint64(r)))
		}
		done <- s
	}()
	start <- 1
	return <-done
}

func main() {
	t := onGoroutine(tightLoop)
	l := onGoroutine(leafLoop)
	n := onGoroutine(nonLeafLoop)
	fmt.Printf("loops tight=%016x leaf=%016x nonleaf=%016x\n", t, l, n)
}
