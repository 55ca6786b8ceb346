package device

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetryWaitsForCleanups: a call that fails until the cleanups of
// unreachable objects have freed what it needs succeeds on retry, although
// the cleanups take a while to run after the collection (a collection
// alone, the old retry, returns before they ran).
func TestRetryWaitsForCleanups(t *testing.T) {
	const n = 4
	var freed atomic.Int64
	drop := func() {
		for i := 0; i < n; i++ {
			p := new([64]byte)
			runtime.AddCleanup(p, func(int) {
				time.Sleep(20 * time.Millisecond)
				freed.Add(1)
				cleanupsRun.Add(1)
			}, i)
		}
	}
	errFull := errors.New("out of memory")
	f := func() error {
		if freed.Load() < n {
			return errFull
		}
		return nil
	}

	// The old retry: a collection and a yield leave the cleanups pending.
	drop()
	runtime.GC()
	runtime.Gosched()
	if f() == nil {
		t.Fatal("the cleanups ran within a yield: this test cannot tell the retries apart")
	}
	collect() // let those run before the real check
	freed.Store(0)

	drop()
	if err := retry(f); err != nil {
		t.Fatalf("retry: %v (freed %d of %d)", err, freed.Load(), n)
	}
}
