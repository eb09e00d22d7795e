// goroutines: 100 goroutines with channels (unbuffered and buffered),
// select, a mutex and sync.WaitGroup: a fan-out of work items to the
// workers, a fan-in of results, and a ring that passes a token around.
// Every park, ready and handoff is a scheduler path the goroutine takes.
package main

import (
	"fmt"
	"sync"
)

const (
	workers = 100
	items   = 10000
	laps    = 20 // token laps around the ring of workers
)

//go:noinline
func work(x int) int {
	h := x
	for i := 0; i < 16; i++ {
		h = h*31 + i
	}
	return h & 0xffff
}

//go:noinline
func worker(in <-chan int, out chan<- int, quit <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case x := <-in:
			out <- work(x)
		case <-quit:
			return
		}
	}
}

//go:noinline
func ringNode(in <-chan int, out chan<- int, mu *sync.Mutex, hits *int, wg *sync.WaitGroup) {
	defer wg.Done()
	for t := range in {
		mu.Lock()
		*hits++
		mu.Unlock()
		if t == 0 {
			close(out)
			return
		}
		out <- t - 1
	}
	close(out)
}

func main() {
	in := make(chan int)
	out := make(chan int, 16)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go worker(in, out, quit, &wg)
	}
	go func() {
		for i := 0; i < items; i++ {
			in <- i
		}
	}()
	sum := 0
	for i := 0; i < items; i++ {
		sum += <-out
	}
	close(quit)
	wg.Wait()

	// A ring of 100 goroutines; the token counts down laps*workers hops,
	// then the one that sees 0 closes its way out and the closes go round.
	var mu sync.Mutex
	hits := 0
	ring := make([]chan int, workers)
	for w := range ring {
		ring[w] = make(chan int, 1)
	}
	var rwg sync.WaitGroup
	for w := 0; w < workers; w++ {
		rwg.Add(1)
		go ringNode(ring[w], ring[(w+1)%workers], &mu, &hits, &rwg)
	}
	ring[0] <- laps * workers
	rwg.Wait()
	fmt.Printf("goroutines sum=%d hits=%d\n", sum, hits)
}
