package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrTooLarge is an answer longer than its bound.
var ErrTooLarge = errors.New("answer too large")

// Budget bounds the bytes of the answers in flight together: a request
// takes its answer's bound from it before it is sent (Take) and gives it
// back when its answer is decoded, so that however many requests are in
// flight, the answers being read never hold more than the total. A nil
// Budget bounds nothing.
type Budget struct {
	mu          sync.Mutex
	cond        *sync.Cond
	total, used int64
	peak        int64
}

// NewBudget returns a budget of total bytes.
func NewBudget(total int64) *Budget {
	b := &Budget{total: total}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Total is the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// Take waits until n bytes (at most the total) are free, takes them and
// returns the function that gives them back.
func (b *Budget) Take(n int64) (give func()) {
	if b == nil {
		return func() {}
	}
	n = min(max(n, 0), b.total)
	b.mu.Lock()
	for b.used+n > b.total {
		b.cond.Wait()
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= n
			b.mu.Unlock()
			b.cond.Broadcast()
		})
	}
}

// Peak is the most bytes taken at once so far.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// Decode decodes one JSON value from r into v, reading at most limit
// bytes: a longer answer is ErrTooLarge (wrapped with the bound), whatever
// the server declares as its length. The value is decoded as it is read;
// no copy of the whole answer is kept beside the decoder's.
func Decode(r io.Reader, limit int64, v any) error {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	err := json.NewDecoder(lr).Decode(v)
	if err != nil && lr.N <= 0 {
		return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return err
}

// Read reads at most limit bytes of r (an error answer, whose start is
// all that is shown); the rest is not read.
func Read(r io.Reader, limit int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, limit))
}
