package workpool

import (
	"runtime"
	"sync"
)

// Parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines: for work that
// keeps a core busy (building models, rendering templates, hashing).
func Parallel(n int, fn func(i int)) {
	Workers(runtime.GOMAXPROCS(0), n, func(_, i int) { fn(i) })
}

// ParallelIO runs fn(0..n-1) on more goroutines than cores: for work that
// mostly waits in system calls (writing files), as a file system serves
// several at once.
func ParallelIO(n int, fn func(i int)) {
	Workers(IOWorkers(), n, func(_, i int) { fn(i) })
}

// IOWorkers is the number of goroutines ParallelIO uses.
func IOWorkers() int { return max(8, runtime.GOMAXPROCS(0)*4) }

// Workers runs fn(w, 0..n-1) on up to workers goroutines, telling fn which
// worker, 0 to workers-1, runs it, for scratch state each worker reuses
// (no two calls with the same w run at once). It returns when every call
// has returned. workers below 1 counts as 1.
func Workers(workers, n int, fn func(w, i int)) {
	workers = min(max(workers, 1), n)
	if workers <= 0 {
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(w, i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
