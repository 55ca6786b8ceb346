package env

import "sync"

// mirror is what a client knows of an episode that runs elsewhere (an
// exec: child, an environment server): what its last answer said, and the
// error that ended it. Its methods other than the accessors expect mu held.
type mirror struct {
	mu         sync.Mutex
	admissible []string
	features   []string
	done       bool
	err        error
	// release is called once when the episode ends (done, failed or
	// closed): a pool of children (execPool) counts the child's episodes.
	release func()
}

func (m *mirror) Admissible() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.admissible...)
}

func (m *mirror) Features() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.features...)
}

// Err returns the error that ended the episode, or nil.
func (m *mirror) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// end marks the episode over and releases it.
func (m *mirror) end() {
	m.done = true
	if m.release != nil {
		m.release()
		m.release = nil
	}
}

// answered takes an answer's lists and its done.
func (m *mirror) answered(admissible, features []string, done bool) {
	if done {
		m.end()
	}
	m.admissible, m.features = orNil(admissible), orNil(features)
}

// fail ends the episode with err, the transport error of a step: the
// step the caller returns is done, not valid, and says the error; the
// features gain failure:env_error.
func (m *mirror) fail(err error) Step {
	m.end()
	m.err = err
	m.admissible = nil
	m.features = append(m.features, "failure:env_error")
	return Step{Observation: "environment error: " + err.Error(), Done: true}
}
