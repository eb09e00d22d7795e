// wbarrier: pointer stores into heap objects while a collector runs
// (runtime.GC in a loop on another goroutine), so the write barrier is
// enabled for many of them: plain pointer fields, pointer arrays, slices,
// strings, interfaces, maps, globals, bulk copies (typedslicecopy) and
// struct copies (typedmemmove).
package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
)

type node struct {
	next *node
	kids [4]*node
	any  interface{}
	s    string
	buf  []byte
	val  int
}

type pair struct {
	a, b *node
	n    int
}

var global *node

//go:noinline
func storeNext(a, b *node) { a.next = b }

//go:noinline
func storeKid(a *node, i int, b *node) { a.kids[i&3] = b }

//go:noinline
func storeIface(a *node, v interface{}) { a.any = v }

//go:noinline
func storeString(a *node, s string) { a.s = s }

//go:noinline
func storeBuf(a *node, b []byte) { a.buf = b }

//go:noinline
func storeGlobal(p *node) { global = p }

//go:noinline
func storeMap(m map[int]*node, k int, v *node) { m[k] = v }

//go:noinline
func bulkCopy(dst, src []*node) int { return copy(dst, src) }

//go:noinline
func pairCopy(dst, src *pair) { *dst = *src }

// val is inlined, on purpose.
func val(n *node) int {
	if n == nil {
		return 0
	}
	return n.val
}

var strs = [...]string{"alpha", "beta", "gamma", "delta"}

func main() {
	var stop atomic.Bool
	started := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		close(started)
		for !stop.Load() {
			runtime.GC()
		}
		close(gcDone)
	}()
	<-started

	const rounds = 4000
	nodes := make([]*node, 64)
	for i := range nodes {
		nodes[i] = &node{val: i + 1}
	}
	m := make(map[int]*node)
	ptrs := make([]*node, 32)
	var p, q pair
	sum := 0
	for r := 0; r < rounds; r++ {
		a := nodes[r%64]
		b := &node{val: r}
		storeNext(a, b)
		storeKid(a, r, nodes[(r*7)%64])
		storeIface(b, a)
		storeString(b, strs[r&3])
		storeBuf(b, make([]byte, 8+r%16))
		storeGlobal(b)
		storeMap(m, r%128, b)
		ptrs[r%32] = b
		bulkCopy(ptrs[:16], ptrs[16:])
		p = pair{a, b, r}
		pairCopy(&q, &p)
		nodes[(r*13)%64] = b
		sum += val(a.next) + val(a.kids[r&3]) + val(q.b) + len(b.s) + len(b.buf) + val(global)
	}
	stop.Store(true)
	<-gcDone
	for k := 0; k < 128; k++ {
		sum += val(m[k])
	}
	for _, n := range nodes {
		if x, ok := n.any.(*node); ok {
			sum += val(x)
		}
	}
	fmt.Printf("wbarrier sum=%d\n", sum)
}
