package cleanup

import (
	"sort"
	"sync"
)

var (
	mu    sync.Mutex
	next  int
	undos = map[int]func(){}
)

// Add registers f to run on Run and returns the function that removes it
// again (safe to call more than once).
func Add(f func()) (remove func()) {
	mu.Lock()
	defer mu.Unlock()
	id := next
	next++
	undos[id] = f
	return func() {
		mu.Lock()
		delete(undos, id)
		mu.Unlock()
	}
}

// Run runs and removes every registered function, the newest first.
func Run() {
	mu.Lock()
	var ids []int
	for id := range undos {
		ids = append(ids, id)
	}
	fs := make([]func(), 0, len(ids))
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	for _, id := range ids {
		fs = append(fs, undos[id])
		delete(undos, id)
	}
	mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Len is the number of registered functions.
func Len() int {
	mu.Lock()
	defer mu.Unlock()
	return len(undos)
}
