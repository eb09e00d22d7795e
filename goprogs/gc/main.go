// gc: allocation-heavy work, so the concurrent collector runs on its own
// (GOGC's pacing) besides explicit runtime.GC calls: trees of pointers,
// maps of slices, strings; no finalizers. While marking, every pointer
// store takes the write barrier and allocation assists the collector.
package main

import (
	"fmt"
	"runtime"
)

type tree struct {
	left, right *tree
	key         int
	tag         string
}

//go:noinline
func build(d, k int) *tree {
	if d == 0 {
		return &tree{key: k}
	}
	return &tree{left: build(d-1, 2*k), right: build(d-1, 2*k+1), key: k}
}

//go:noinline
func check(t *tree) int {
	if t == nil {
		return 0
	}
	return t.key&7 + check(t.left) - check(t.right)&3
}

//go:noinline
func churn(m map[int][]byte, i int) int {
	b := make([]byte, 32+i%200)
	b[0] = byte(i)
	m[i%256] = b
	return len(m[(i*7)%256])
}

//go:noinline
func strs(i int) string {
	s := fmt.Sprintf("item-%d", i)
	return s + s[:4]
}

// count is inlined, on purpose.
func count(t *tree) int {
	if t == nil {
		return 0
	}
	return 1
}

func main() {
	const rounds = 3000
	keep := make([]*tree, 16)
	m := make(map[int][]byte)
	sum := 0
	for i := 0; i < rounds; i++ {
		t := build(4+i%3, i)
		sum += check(t) + count(t.left)
		keep[i%16] = t // the older one becomes garbage
		sum += churn(m, i)
		sum += len(strs(i))
		if i%500 == 499 {
			runtime.GC()
		}
	}
	for _, t := range keep {
		sum += check(t)
	}
	fmt.Printf("gc sum=%d\n", sum)
}
