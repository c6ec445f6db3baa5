package workpool

import "sync/atomic"

// Claim is one piece of work that several goroutines may each be ready to
// do, done by whichever asks first: the others neither wait for it nor do
// it again. The zero value is unclaimed.
type Claim struct {
	state atomic.Uint32 // claimFree, claimTaken or claimDone
}

const (
	claimFree uint32 = iota
	claimTaken
	claimDone
)

// Do runs work unless another caller has run it or is running it, and
// reports whether its results are published: work ran, here or before
// (what work writes is visible to whoever Do told so). false: another
// caller is running it now.
func (c *Claim) Do(work func()) bool {
	if !c.state.CompareAndSwap(claimFree, claimTaken) {
		return c.state.Load() == claimDone
	}
	work()
	c.state.Store(claimDone)
	return true
}
