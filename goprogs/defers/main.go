// defers: defer (open-coded, and in a loop, which heap- or stack-allocates
// the record), panic and recover across frames, closures capturing variables
// by reference and by value, method values (bound methods, their wrapper
// functions), method expressions and interface method calls.
package main

import (
	"errors"
	"fmt"
)

type acc struct{ n int }

func (a *acc) add(x int) { a.n += x } // small: inlined where called directly

//go:noinline
func (a acc) get() int { return a.n }

type getter interface{ get() int }

//go:noinline
func openCoded(a *acc, x int) (r int) {
	defer func() { r += 1 }()
	defer a.add(x)
	return x * 2
}

//go:noinline
func deferLoop(a *acc, n int) int {
	for i := 0; i < n; i++ {
		defer a.add(i)
	}
	return a.n
}

//go:noinline
func mayPanic(i int) int {
	if i%5 == 0 {
		panic(errors.New("five"))
	}
	return i
}

//go:noinline
func recovered(i int) (r int, err error) {
	defer func() {
		if e := recover(); e != nil {
			err = e.(error)
			r = -1
		}
	}()
	return mayPanic(i), nil
}

//go:noinline
func counter() (func() int, func(int)) {
	c := 0
	return func() int { c++; return c }, func(d int) { c += d }
}

//go:noinline
func apply(f func(int), x int) { f(x) }

//go:noinline
func callGetter(g getter) int { return g.get() }

func main() {
	const rounds = 4000
	a := &acc{}
	next, bump := counter()
	add := a.add            // method value
	get := acc.get          // method expression
	sum, errs := 0, 0
	for i := 0; i < rounds; i++ {
		sum += openCoded(a, i&15)
		sum += deferLoop(a, i%4)
		r, err := recovered(i)
		if err != nil {
			errs++
		}
		sum += r
		bump(i & 3)
		sum += next()
		apply(add, 1)
		k := i // captured by value
		apply(func(d int) { sum += d + k&1 }, 2)
		sum += get(*a)&0xff + callGetter(*a)&0xff
	}
	fmt.Printf("defers sum=%d errs=%d acc=%d\n", sum, errs, a.n)
}
