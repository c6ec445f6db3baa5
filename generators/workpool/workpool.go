package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
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
	// Each worker claims the next index itself: a channel fed by this
	// goroutine made every item a hand-off between goroutines, and the
	// feeder a third goroutine competing for the cores. The caller is
	// worker 0.
	var next atomic.Int64
	work := func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(w, i)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
}
