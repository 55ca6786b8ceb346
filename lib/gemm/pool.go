package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A task is work that helper goroutines may join. help must be safe to call
// at any time, including after the task is complete (it then returns at
// once), and from several goroutines.
type task interface{ help() }

// Helper goroutines are started on first use, one fewer than GOMAXPROCS (more
// are added if GOMAXPROCS grows), and live for the rest of the process.
// After finishing a task a helper keeps polling for the next one for
// helperSpin before it parks, so that the back-to-back products of a
// training step find it awake instead of paying a wake-up each time.
var (
	tasks       = make(chan task, 64)
	helpersMu   sync.Mutex
	helpersLive atomic.Int64
)

// helperSpin is how long an idle helper polls for work before it parks.
const helperSpin = 200 * time.Microsecond

// offer makes t available to up to n helpers. It never blocks: the caller
// of a task always runs it to completion itself, helpers only speed it up.
func offer(t task, n int) {
	if int(helpersLive.Load()) < n {
		helpersMu.Lock()
		for int(helpersLive.Load()) < n {
			helpersLive.Add(1)
			go helperLoop()
		}
		helpersMu.Unlock()
	}
	for i := 0; i < n; i++ {
		select {
		case tasks <- t:
		default:
			return
		}
	}
}

func helperLoop() {
	for {
		t := <-tasks
		t.help()
		start := time.Now()
		for spin := 1; ; spin++ {
			select {
			case t := <-tasks:
				t.help()
				start = time.Now()
				continue
			default:
			}
			if spin&63 == 0 && time.Since(start) > helperSpin {
				break
			}
			runtime.Gosched()
		}
	}
}
