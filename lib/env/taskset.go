package env

import (
	"fmt"
	"strings"
)

// TaskSet is the split and task bookkeeping of an environment whose tasks
// are generated up front: each split's tasks in order and every task by
// id. An environment's Splits, Tasks and Reset delegate to it, so the
// errors for an unknown split or task read the same everywhere.
type TaskSet[T any] struct {
	env     string   // environment name, for errors
	splits  []string // in order
	bySplit map[string][]T
	byID    map[string]T
	id      func(T) string
}

// NewTaskSet returns an empty set of the named environment with the given
// splits (in order); id gives a task's id.
func NewTaskSet[T any](env string, splits []string, id func(T) string) *TaskSet[T] {
	return &TaskSet[T]{env: env, splits: append([]string(nil), splits...), bySplit: map[string][]T{}, byID: map[string]T{}, id: id}
}

// Add appends task t to split.
func (s *TaskSet[T]) Add(split string, t T) {
	s.bySplit[split] = append(s.bySplit[split], t)
	s.byID[s.id(t)] = t
}

// Splits lists the splits in order.
func (s *TaskSet[T]) Splits() []string { return append([]string(nil), s.splits...) }

// Tasks lists the ids of a split in order; an unknown split is an error
// naming the known ones.
func (s *TaskSet[T]) Tasks(split string) ([]string, error) {
	ts, ok := s.bySplit[split]
	if !ok {
		return nil, fmt.Errorf("%s: unknown split %q (known: %s)", s.env, split, strings.Join(s.splits, ", "))
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = s.id(t)
	}
	return out, nil
}

// Split returns the tasks of a split in order (nil for an unknown split).
func (s *TaskSet[T]) Split(name string) []T { return s.bySplit[name] }

// Lookup returns the task with id.
func (s *TaskSet[T]) Lookup(id string) (T, bool) {
	t, ok := s.byID[id]
	return t, ok
}

// Get returns the task with id; an unknown id is an error.
func (s *TaskSet[T]) Get(id string) (T, error) {
	t, ok := s.byID[id]
	if !ok {
		return t, fmt.Errorf("%s: unknown task id %q", s.env, id)
	}
	return t, nil
}

// Each calls fn with the tasks of every split, in split order.
func (s *TaskSet[T]) Each(fn func(split string, tasks []T)) {
	for _, sp := range s.splits {
		fn(sp, s.bySplit[sp])
	}
}
