package env

import (
	"fmt"
	"slices"
	"sync"
)

// execPool is an exec: environment served by several children: each
// episode is played by the child with the fewest episodes open when it
// starts (the lowest-numbered among equals), so that episodes in flight
// do not queue on one child. Every child runs the same command; an episode
// is a function of (task, seed) alone, so which child plays it changes
// nothing in what it shows.
type execPool struct {
	children []*execEnv
	mu       sync.Mutex
	open     []int // episodes open per child
}

// openExecPool starts n children of command at once and checks that they
// describe the same environment.
func openExecPool(command string, n int, opts ExecOptions) (Env, error) {
	envs := make([]Env, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			envs[i], errs[i] = OpenExecWith(command, opts)
		}()
	}
	wg.Wait()
	p := &execPool{open: make([]int, n)}
	for _, e := range envs {
		if e != nil {
			p.children = append(p.children, e.(*execEnv))
		}
	}
	if err := firstError(errs); err != nil {
		p.Close()
		return nil, err
	}
	first := p.children[0].info
	for i, c := range p.children[1:] {
		if c.info.Name != first.Name || !slices.Equal(c.info.TaskTypes, first.TaskTypes) ||
			!slices.Equal(c.info.Splits, first.Splits) || !slices.Equal(c.info.Vocabulary, first.Vocabulary) {
			p.Close()
			return nil, &BrokenError{msg: fmt.Sprintf("exec env %q: child %d describes another environment than child 0 (its info answer differs): the children of one environment must be alike", p.children[0].command, i+1)}
		}
	}
	return p, nil
}

// firstError is the first non-nil error of errs.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *execPool) Name() string         { return p.children[0].Name() }
func (p *execPool) TaskTypes() []string  { return p.children[0].TaskTypes() }
func (p *execPool) Splits() []string     { return p.children[0].Splits() }
func (p *execPool) Vocabulary() []string { return p.children[0].Vocabulary() }
func (p *execPool) Oracle() Agent        { return nil }

// Tasks asks the first child.
func (p *execPool) Tasks(split string) ([]string, error) { return p.children[0].Tasks(split) }

// Reset starts the episode on the child with the fewest open episodes.
func (p *execPool) Reset(id string, seed int64) (Episode, error) {
	p.mu.Lock()
	k := 0
	for i, n := range p.open {
		if n < p.open[k] {
			k = i
		}
	}
	p.open[k]++
	p.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			p.mu.Lock()
			p.open[k]--
			p.mu.Unlock()
		})
	}
	ep, err := p.children[k].Reset(id, seed)
	if err != nil {
		release()
		return nil, err
	}
	x := ep.(*execEpisode)
	x.mu.Lock()
	x.release = release
	x.mu.Unlock()
	return x, nil
}

// Close ends every child; the error is the first child's that failed.
func (p *execPool) Close() error {
	errs := make([]error, len(p.children))
	var wg sync.WaitGroup
	for i, c := range p.children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Close()
		}()
	}
	wg.Wait()
	return firstError(errs)
}
