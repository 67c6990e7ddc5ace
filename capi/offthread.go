package main

import "fmt"

// offThread runs body on a fresh goroutine and waits for it. An export's
// own goroutine is locked to the calling C thread, and every hand-over
// between it and the solver's worker pool then costs a switch of OS
// threads: a fit run there on 2 threads was barely faster than on one
// (issue 9). The solver work therefore runs off the calling thread.
//
// Whatever must happen on the calling thread (the progress callback, which
// sompca.h promises runs there) is passed to onCaller, which runs it here
// and returns when it is done. A panic in body is raised again on the
// calling goroutine, where run turns it into SOMPCA_EINTERNAL.
func offThread(body func(onCaller func(func())) error) error {
	type result struct {
		err      error
		panicked any
	}
	calls := make(chan func())
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{panicked: v}
			}
		}()
		err := body(func(f func()) {
			finished := make(chan struct{})
			calls <- func() {
				defer close(finished)
				f()
			}
			<-finished
		})
		done <- result{err: err}
	}()
	for {
		select {
		case f := <-calls:
			f()
		case r := <-done:
			if r.panicked != nil {
				panic(fmt.Sprint(r.panicked))
			}
			return r.err
		}
	}
}
