package par

import (
	"errors"
	"fmt"
	"time"
)

// ErrCanceled is the error of work stopped by its cancel function; the
// solver package exports it as solver.ErrCanceled.
var ErrCanceled = errors.New("solver: fit canceled by the progress callback")

// Interruptible runs work, a long computation that cannot poll for
// cancellation itself (gonum's dense products and eigendecompositions), on
// a goroutine of its own and waits for it, polling cancel. Once cancel
// returns true it returns ErrCanceled at once: work then finishes in the
// background and its results are dropped. A nil cancel runs work inline.
func Interruptible(cancel func() bool, work func()) error {
	if cancel == nil {
		work()
		return nil
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		work()
	}()
	tick := time.NewTicker(cancelPoll)
	defer tick.Stop()
	for {
		select {
		case p := <-done:
			if p != nil {
				panic(fmt.Sprintf("solver: %v", p)) // on the caller's goroutine, where it can be recovered
			}
			return nil
		case <-tick.C:
			if cancel() {
				return ErrCanceled
			}
		}
	}
}
