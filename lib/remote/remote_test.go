package remote

import (
	"errors"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDecodeBound: a value within the bound decodes; a longer one is
// ErrTooLarge after at most limit+1 bytes read, whatever follows.
func TestDecodeBound(t *testing.T) {
	var v struct{ IDs []int }
	if err := Decode(strings.NewReader(`{"IDs":[1,2,3]}`), 15, &v); err != nil || len(v.IDs) != 3 {
		t.Fatalf("within the bound: %v %v", v, err)
	}
	r := &countingReader{r: strings.NewReader(`{"IDs":[` + strings.Repeat("1,", 1<<20))}
	err := Decode(r, 1000, &v)
	if !errors.Is(err, ErrTooLarge) || r.n > 1001 {
		t.Fatalf("past the bound: %v after %d bytes", err, r.n)
	}
	if err := Decode(strings.NewReader(`{"IDs":[1,`), 1000, &v); err == nil || errors.Is(err, ErrTooLarge) {
		t.Fatalf("a short broken answer: %v", err)
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += k
	return k, err
}

// TestBudget: takers never hold more than the total together; a take
// larger than the total takes the total.
func TestBudget(t *testing.T) {
	b := NewBudget(100)
	var held, most atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(10 + i%50)
			give := b.Take(n)
			h := held.Add(n)
			for m := most.Load(); h > m && !most.CompareAndSwap(m, h); m = most.Load() {
			}
			held.Add(-n)
			give()
			give() // giving back twice gives back once
		}()
	}
	wg.Wait()
	if most.Load() > 100 || b.Peak() > 100 {
		t.Fatalf("%d held at once (peak %d), budget 100", most.Load(), b.Peak())
	}
	b.Take(1000)() // clamped to the total: does not wait forever
	var none *Budget
	none.Take(1 << 40)()
}

// TestOriginAndPort: a written default port is the same origin; ports
// outside 1-65535 are refused.
func TestOriginAndPort(t *testing.T) {
	a, _ := url.Parse("http://H:80/v1")
	b, _ := url.Parse("http://h/v2")
	c, _ := url.Parse("https://h/v1")
	if origin(a) != origin(b) || origin(b) == origin(c) {
		t.Fatalf("origins %s %s %s", origin(a), origin(b), origin(c))
	}
	for p, ok := range map[string]bool{"1": true, "65535": true, "0": false, "65536": false, "99999": false} {
		u, _ := url.Parse("http://h:" + p)
		if (CheckPort(u) == nil) != ok {
			t.Errorf("port %s: %v", p, CheckPort(u))
		}
	}
}
