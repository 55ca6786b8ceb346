package device

import (
	"runtime"
	"sync/atomic"
	"time"
)

// cleanupsRun counts the device decoders freed by their cleanups (tests
// and the out-of-memory retry read it).
var cleanupsRun atomic.Int64

// cleanupWait bounds how long retry waits for cleanups after a collection.
const cleanupWait = 2 * time.Second

// settle is how long the count of decoder cleanups must stay still.
const settle = 50 * time.Millisecond

// retry runs f once more when it fails, after a garbage collection and
// after the cleanups that collection queued have run: the first failure is
// often device memory held by decoders nothing refers to any longer, and
// their cleanups (which free it) run on another goroutine after the
// collection returns. A sentinel object made unreachable before the
// collection has its own cleanup; retry waits (at most cleanupWait) until
// that sentinel's cleanup ran and no decoder cleanup ran for settle.
func retry(f func() error) error {
	err := f()
	if err == nil {
		return nil
	}
	collect()
	if f() == nil {
		return nil
	}
	return err
}

// collect runs a garbage collection and waits for the cleanups it queued.
func collect() {
	done := make(chan struct{})
	func() {
		s := new([16]byte)
		runtime.AddCleanup(s, func(c chan struct{}) { close(c) }, done)
	}()
	runtime.GC()
	deadline := time.After(cleanupWait)
	select {
	case <-done:
	case <-deadline:
		return
	}
	// The sentinel's cleanup may run before others the collection queued
	// (cleanups have no order and may run on more than one goroutine):
	// wait until the count of decoder cleanups stays still for settle.
	last := cleanupsRun.Load()
	for {
		select {
		case <-deadline:
			return
		case <-time.After(settle):
		}
		now := cleanupsRun.Load()
		if now == last {
			return
		}
		last = now
	}
}
