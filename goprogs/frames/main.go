// frames: functions with local arrays of 0, 8, 64, 120, 128, 136, 1024,
// 4000 and 8192 bytes, each filling its array and passing it down (so the
// frame really holds it): small frames, frames around the 128-byte red
// zone and StackSmall, frames past StackBig (4096), which check the stack
// differently in their prologue. And copies: arrays and structs passed and
// returned by value (duffzero, duffcopy, vector moves, rep movs).
package main

import "fmt"

type big struct {
	a [48]uint64 // 384 bytes
	b [16]uint32
}

//go:noinline
func sum(b []byte) uint64 {
	var s uint64
	for i, x := range b {
		s += uint64(x) * uint64(i+1)
	}
	return s
}

//go:noinline
func f0(x uint64) uint64 { return x*3 + 1 }

//go:noinline
func f8(x uint64) uint64 {
	var a [8]byte
	a[x&7] = byte(x)
	return f0(x) + sum(a[:])
}

//go:noinline
func f64(x uint64) uint64 {
	var a [64]byte
	a[x&63] = byte(x)
	return f8(x+1) + sum(a[:])
}

//go:noinline
func f120(x uint64) uint64 {
	var a [120]byte
	a[x%120] = byte(x)
	return f64(x+1) + sum(a[:])
}

//go:noinline
func f128(x uint64) uint64 {
	var a [128]byte
	a[x&127] = byte(x)
	return f120(x+1) + sum(a[:])
}

//go:noinline
func f136(x uint64) uint64 {
	var a [136]byte
	a[x%136] = byte(x)
	return f128(x+1) + sum(a[:])
}

//go:noinline
func f1024(x uint64) uint64 {
	var a [1024]byte
	a[x&1023] = byte(x)
	return f136(x+1) + sum(a[:64])
}

//go:noinline
func f4000(x uint64) uint64 {
	var a [4000]byte
	a[x%4000] = byte(x)
	return f1024(x+1) + sum(a[x%4000:][:1])
}

//go:noinline
func f8192(x uint64) uint64 {
	var a [8192]byte
	a[x&8191] = byte(x)
	return f4000(x+1) + sum(a[x&8191:][:1])
}

//go:noinline
func byValue(a [136]byte) uint64 { return uint64(a[0]) + uint64(a[135]) }

//go:noinline
func bigByValue(b big) big {
	b.a[b.b[0]%48]++
	return b
}

//go:noinline
func copyBig(dst, src *big) { *dst = *src }

//go:noinline
func arr1k(x byte) [1024]byte {
	var a [1024]byte
	a[int(x)*4] = x
	return a
}

// cell is inlined, on purpose.
func cell(b *big, i int) uint64 { return b.a[i%48] + uint64(b.b[i%16]) }

func main() {
	const rounds = 4000
	var total uint64
	var b1, b2 big
	var small [136]byte
	for i := 0; i < rounds; i++ {
		x := uint64(i)
		total += f8192(x)
		small[i%136] = byte(i)
		total += byValue(small)
		b1.b[0] = uint32(i)
		b2 = bigByValue(b1)
		copyBig(&b1, &b2)
		total += cell(&b1, i)
		k := arr1k(byte(i))
		total += uint64(k[(i&255)*4])
	}
	fmt.Printf("frames total=%d\n", total)
}
