// rtcalls: small functions whose bodies are mostly runtime calls the
// compiler inserts: make (makeslice, makemap), append (growslice), map
// reads, writes and deletes (mapaccess1/2, mapassign, mapdelete), string
// concatenation (concatstrings), copy (memmove), conversions between
// strings, bytes and runes, interface conversions (convT), type assertions
// and switches, range over a string (decoderune). Some are inlined on
// purpose, so that a runtime call sits inside an inlined body.
package main

import "fmt"

//go:noinline
func mk(n int) []int { return make([]int, n, n+4) }

//go:noinline
func grow(s []int, n int) []int {
	for i := 0; i < n; i++ {
		s = append(s, i)
	}
	return s
}

//go:noinline
func mapOps(m map[string]int, k string, i int) int {
	m[k] += i
	v, ok := m[k+"x"]
	if ok {
		delete(m, k+"x")
	}
	return m[k] + v
}

//go:noinline
func concat(a, b string, i int) string { return a + "-" + b + string(rune('a'+i%26)) }

//go:noinline
func cp(dst, src []byte) int { return copy(dst, src) }

//go:noinline
func conv(s string) int {
	b := []byte(s)
	b[0] ^= 1
	r := []rune(string(b))
	return len(r) + int(b[0])
}

//go:noinline
func boxed(i int) interface{} {
	switch i % 4 {
	case 0:
		return i
	case 1:
		return fmt.Sprint(i % 10)
	case 2:
		return float64(i)
	}
	return []int{i}
}

//go:noinline
func unbox(x interface{}) int {
	switch v := x.(type) {
	case int:
		return v
	case string:
		return len(v)
	case float64:
		return int(v) / 2
	case []int:
		return v[0]
	}
	return -1
}

//go:noinline
func runes(s string) int {
	n := 0
	for _, r := range s {
		n += int(r)
	}
	return n
}

// The next three are inlined into main, on purpose: their runtime calls
// are then main's, under an inline mark.
func lookup(m map[int]int, k int) int { return m[k] }

func push(s []byte, b byte) []byte { return append(s, b) }

func join(a, b string) string { return a + b }

func main() {
	const rounds = 4000
	m := make(map[string]int)
	mi := make(map[int]int)
	var bs []byte
	src := []byte("the quick brown fox jumps over the lazy dog")
	dst := make([]byte, 16)
	sum := 0
	for i := 0; i < rounds; i++ {
		s := mk(i % 32)
		s = grow(s, i%9)
		sum += len(s) + cap(s)
		k := concat("key", "k", i%50)
		sum += mapOps(m, k, i)
		if i%3 == 0 {
			m[k+"x"] = i
		}
		sum += cp(dst, src[i%len(src):])
		sum += conv(k + "é")
		sum += unbox(boxed(i))
		sum += runes(k + "ü→")
		mi[i%64] = i
		sum += lookup(mi, (i*5)%64)
		bs = push(bs[:i%100], byte(i))
		sum += len(join(k, "z")) + int(bs[len(bs)-1])
	}
	fmt.Printf("rtcalls sum=%d keys=%d\n", sum, len(m))
}
