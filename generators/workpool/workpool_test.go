package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEveryIndexRunsOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(n int, fn func(int))
	}{
		{"Parallel", Parallel},
		{"ParallelIO", ParallelIO},
		{"Workers(3)", func(n int, fn func(int)) { Workers(3, n, func(_, i int) { fn(i) }) }},
		{"Workers(0)", func(n int, fn func(int)) { Workers(0, n, func(_, i int) { fn(i) }) }},
	} {
		for _, n := range []int{0, 1, 2, 7, 1000} {
			counts := make([]atomic.Int32, n)
			tc.run(n, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Errorf("%s(%d): index %d ran %d times", tc.name, n, i, c)
				}
			}
		}
	}
}

func TestNegativeCountRunsNothing(t *testing.T) {
	Parallel(-3, func(int) { t.Error("ran") })
	Workers(4, -1, func(int, int) { t.Error("ran") })
}

// A worker's index is in range and never runs two calls at once, so
// per-worker scratch state needs no lock.
func TestWorkerIndexIsExclusive(t *testing.T) {
	const workers, n = 4, 400
	var busy [workers]atomic.Int32
	var bad atomic.Int32
	Workers(workers, n, func(w, i int) {
		if w < 0 || w >= workers {
			bad.Add(1)
			return
		}
		if busy[w].Add(1) != 1 {
			bad.Add(1)
		}
		runtime.Gosched()
		busy[w].Add(-1)
	})
	if bad.Load() != 0 {
		t.Fatalf("%d calls saw a worker index out of range or already busy", bad.Load())
	}
}

// Workers never starts more goroutines than asked.
func TestWorkersBound(t *testing.T) {
	const workers = 3
	var running, peak atomic.Int32
	Workers(workers, 60, func(int, int) {
		r := running.Add(1)
		for {
			p := peak.Load()
			if r <= p || peak.CompareAndSwap(p, r) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
	})
	if p := peak.Load(); p > workers {
		t.Fatalf("peak concurrency %d > %d workers", p, workers)
	}
}

// ParallelIO runs at least eight calls at once, whatever the core count:
// eight calls that each wait for all eight finish.
func TestParallelIOOverlapsWaits(t *testing.T) {
	if IOWorkers() < 8 {
		t.Fatalf("IOWorkers() = %d, want at least 8", IOWorkers())
	}
	var wg sync.WaitGroup
	wg.Add(8)
	done := make(chan struct{})
	go func() {
		ParallelIO(8, func(int) { wg.Done(); wg.Wait() })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ParallelIO did not run 8 waiting calls at once")
	}
}

// TestClaim: of callers racing for one Claim, one runs the work; each is
// told the work's results are published unless it asked while they were
// not yet, and a caller after them all is told so without running it.
func TestClaim(t *testing.T) {
	for range 100 {
		var c Claim
		var runs atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.Do(func() { runs.Add(1) })
			}()
		}
		wg.Wait()
		if !c.Do(func() { runs.Add(1) }) || runs.Load() != 1 {
			t.Fatalf("work ran %d times, want once", runs.Load())
		}
	}
}
