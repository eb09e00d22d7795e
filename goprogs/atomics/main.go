// atomics: sync/atomic operations in loops on 4 goroutines at once: adds,
// compare-and-swap loops, loads and stores, swaps, of every width, the
// typed atomics and atomic.Value (each a short instruction sequence, LL/SC
// loops on arm64 without LSE, loong64 and riscv64).
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

const (
	workers = 4
	rounds  = 5000
)

var (
	c32  int32
	c64  int64
	u32  uint32
	u64  uint64
	uptr uintptr
	t64  atomic.Int64
	tu32 atomic.Uint32
	val  atomic.Value
	ptr  atomic.Pointer[int]
)

//go:noinline
func add(i int) {
	atomic.AddInt32(&c32, 1)
	atomic.AddInt64(&c64, int64(i))
	atomic.AddUint32(&u32, 3)
	atomic.AddUintptr(&uptr, 2)
}

//go:noinline
func casLoop(d uint64) {
	for {
		old := atomic.LoadUint64(&u64)
		if atomic.CompareAndSwapUint64(&u64, old, old+d) {
			return
		}
	}
}

//go:noinline
func typed(i int) {
	t64.Add(int64(i & 7))
	for {
		old := tu32.Load()
		if tu32.CompareAndSwap(old, old+1) {
			return
		}
	}
}

//go:noinline
func loadStore(i int) int64 {
	if i%1000 == 0 {
		val.Store(i / 1000)
	}
	_ = val.Load()
	x := new(int)
	*x = i
	ptr.Store(x)
	return int64(*ptr.Load()) // another goroutine's store, maybe: not summed
}

//go:noinline
func swap(i int32) int32 { return atomic.SwapInt32(&c32, atomic.LoadInt32(&c32)+i-i) }

func main() {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				add(i)
				casLoop(uint64(w + 1))
				typed(i)
				loadStore(i)
			}
		}(w)
	}
	wg.Wait()
	var s int32
	for i := 0; i < rounds; i++ { // one goroutine: swaps keep their order
		s += swap(1) & 1
	}
	fmt.Printf("atomics c32=%d c64=%d u32=%d u64=%d uptr=%d t64=%d tu32=%d s=%d\n",
		atomic.LoadInt32(&c32), atomic.LoadInt64(&c64), atomic.LoadUint32(&u32),
		atomic.LoadUint64(&u64), atomic.LoadUintptr(&uptr), t64.Load(), tu32.Load(), s)
}
