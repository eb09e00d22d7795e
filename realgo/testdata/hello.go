// A small Go program for realgo's tests: a //go:noinline leaf, a pointer
// store into a global (a write-barrier sequence), an atomic operation, and
// runtime functions inlined into main (runtime.NumGoroutine, runtime.Gosched).
package main

import (
	"os"
	"runtime"
	"sync/atomic"
)

type node struct {
	next *node
	val  int
}

var head *node
var counter int64

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

//go:noinline
func link(v int) {
	head = &node{next: head, val: v}
}

//go:noinline
func grow(b []int, v int) []int {
	return append(b, v)
}

func main() {
	var b []int
	for i := 0; i < 10; i++ {
		link(i)
		b = grow(b, work(i))
		atomic.AddInt64(&counter, 1)
	}
	if runtime.NumGoroutine() > 100 {
		runtime.Gosched()
	}
	if len(os.Args) > 5 {
		println(len(b), atomic.LoadInt64(&counter))
		os.Exit(3)
	}
}
