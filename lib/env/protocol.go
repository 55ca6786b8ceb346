package env

import (
	"encoding/json"

	"github.com/pats-rl/pats/lib/toolcall"
)

// ProtocolVersion is the version of the JSON-lines protocol that OpenExec
// speaks and Serve answers (docs/env-protocol.md). An info response with
// another non-zero "protocol" is refused.
const ProtocolVersion = 1

// Protocol operations.
const (
	OpInfo  = "info"
	OpTasks = "tasks"
	OpReset = "reset"
	OpStep  = "step"
	OpClose = "close"
)

// Request is one line from client to server. Op selects the fields used:
// tasks uses Split; reset uses ID, Seed and Episode; step uses Episode and
// Action; close uses Episode.
// A missing field decodes as its zero value.
type Request struct {
	Op      string `json:"op"`
	Split   string `json:"split,omitempty"`
	ID      string `json:"id,omitempty"`
	Seed    int64  `json:"seed,omitempty"`
	Episode int64  `json:"episode,omitempty"`
	Action  string `json:"action,omitempty"`
}

// MarshalJSON writes exactly the fields op uses, zero values included, so
// every request of one op has the same keys.
func (r Request) MarshalJSON() ([]byte, error) {
	switch r.Op {
	case OpTasks:
		return json.Marshal(struct {
			Op    string `json:"op"`
			Split string `json:"split"`
		}{r.Op, r.Split})
	case OpReset:
		return json.Marshal(struct {
			Op      string `json:"op"`
			ID      string `json:"id"`
			Seed    int64  `json:"seed"`
			Episode int64  `json:"episode"`
		}{r.Op, r.ID, r.Seed, r.Episode})
	case OpStep:
		return json.Marshal(struct {
			Op      string `json:"op"`
			Episode int64  `json:"episode"`
			Action  string `json:"action"`
		}{r.Op, r.Episode, r.Action})
	case OpClose:
		return json.Marshal(struct {
			Op      string `json:"op"`
			Episode int64  `json:"episode"`
		}{r.Op, r.Episode})
	}
	type plain Request // no methods: avoids recursion
	return json.Marshal(plain(r))
}

// InfoResponse answers info.
type InfoResponse struct {
	Protocol   int      `json:"protocol"`
	Name       string   `json:"name"`
	TaskTypes  []string `json:"task_types"`
	Splits     []string `json:"splits"`
	Vocabulary []string `json:"vocabulary"`
	// Tools (optional) are the environment's actions as tools, for the
	// tools action format (env.ToolDeclarer).
	Tools []toolcall.Tool `json:"tools,omitempty"`
}

// TasksResponse answers tasks.
type TasksResponse struct {
	Tasks []string `json:"tasks"`
}

// ResetResponse answers reset: the episode's fixed facts and its state
// before the first step.
type ResetResponse struct {
	TaskID      string   `json:"task_id"`
	TaskType    string   `json:"task_type"`
	Goal        string   `json:"goal"`
	Observation string   `json:"observation"`
	Admissible  []string `json:"admissible"`
	MaxSteps    int      `json:"max_steps"`
	Features    []string `json:"features"`
	Key         string   `json:"key,omitempty"` // anchor-state key of the first state; "" = StateKey(observation)
}

// StepResponse answers step: the Step plus the episode's admissible actions
// and features after it.
type StepResponse struct {
	Observation string   `json:"observation"`
	Reward      float64  `json:"reward"`
	Done        bool     `json:"done"`
	Success     bool     `json:"success"`
	Score       float64  `json:"score"`
	Valid       bool     `json:"valid"`
	Admissible  []string `json:"admissible"`
	Features    []string `json:"features"`
	Key         string   `json:"key,omitempty"` // anchor-state key of the state after the step; "" = StateKey(observation)
}

// errorResponse answers any request that failed.
type errorResponse struct {
	Error string `json:"error"`
}

// okResponse answers close.
type okResponse struct {
	OK bool `json:"ok"`
}

// list makes a nil list an empty one, so the wire carries [] and never null.
func list(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// orNil makes an empty list nil: a Go Env's "nothing" is usually nil.
func orNil(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return xs
}
