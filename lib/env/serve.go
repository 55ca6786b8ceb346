package env

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Serve answers protocol requests read as JSON lines from r with one JSON
// line each on w, until r ends (then it returns nil). Requests are handled
// one at a time in order. A request that cannot be decoded or fails gets
// {"error": "..."} and serving goes on; only a read or write failure ends
// Serve with an error. An episode is dropped when a step reports done or on
// close; further requests for it are errors.
func Serve(e Env, r io.Reader, w io.Writer) error {
	br := bufio.NewReader(r)
	bw := bufio.NewWriter(w)
	s := &server{env: e, episodes: map[int64]Episode{}}
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			resp := s.handle(line, lineNo)
			out, merr := json.Marshal(resp)
			if merr != nil {
				out, _ = json.Marshal(errorResponse{Error: fmt.Sprintf("request line %d: cannot encode the response: %v", lineNo, merr)})
			}
			out = append(out, '\n')
			if _, werr := bw.Write(out); werr != nil {
				return fmt.Errorf("env serve: writing response: %w", werr)
			}
			if werr := bw.Flush(); werr != nil {
				return fmt.Errorf("env serve: writing response: %w", werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("env serve: reading requests: %w", err)
		}
	}
}

type server struct {
	env      Env
	episodes map[int64]Episode
}

func (s *server) handle(line []byte, lineNo int) (resp any) {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return errorResponse{Error: fmt.Sprintf("request line %d is not a JSON request: %v", lineNo, err)}
	}
	defer func() {
		if p := recover(); p != nil {
			resp = errorResponse{Error: fmt.Sprintf("%s: environment panicked: %v", req.Op, p)}
		}
	}()
	switch req.Op {
	case OpInfo:
		return InfoResponse{
			Protocol: ProtocolVersion, Name: s.env.Name(), TaskTypes: list(s.env.TaskTypes()),
			Splits: list(s.env.Splits()), Vocabulary: list(s.env.Vocabulary()), Tools: Tools(s.env),
		}
	case OpTasks:
		t, err := s.env.Tasks(req.Split)
		if err != nil {
			return errorResponse{Error: err.Error()}
		}
		return TasksResponse{Tasks: list(t)}
	case OpReset:
		if _, open := s.episodes[req.Episode]; open {
			return errorResponse{Error: fmt.Sprintf("reset: episode %d is already open", req.Episode)}
		}
		ep, err := s.env.Reset(req.ID, req.Seed)
		if err != nil {
			return errorResponse{Error: err.Error()}
		}
		s.episodes[req.Episode] = ep
		r := ResetResponse{
			TaskID: ep.TaskID(), TaskType: ep.TaskType(), Goal: ep.Goal(), Observation: ep.Observation(),
			Admissible: list(ep.Admissible()), MaxSteps: ep.MaxSteps(), Features: list(ep.Features()),
		}
		if k, ok := ep.(KeyedEpisode); ok {
			r.Key = k.InitialKey()
		}
		return r
	case OpStep:
		ep, ok := s.episodes[req.Episode]
		if !ok {
			return errorResponse{Error: fmt.Sprintf("step: episode %d is not open (never reset, closed, or done)", req.Episode)}
		}
		st := ep.Step(req.Action)
		if st.Done {
			delete(s.episodes, req.Episode)
		}
		return StepResponse{
			Observation: st.Observation, Reward: st.Reward, Done: st.Done, Success: st.Success,
			Score: st.Score, Valid: st.Valid, Admissible: list(ep.Admissible()), Features: list(ep.Features()),
			Key: st.Key,
		}
	case OpClose:
		delete(s.episodes, req.Episode)
		return okResponse{OK: true}
	case "":
		return errorResponse{Error: fmt.Sprintf("request line %d has no \"op\"", lineNo)}
	}
	return errorResponse{Error: fmt.Sprintf("unknown op %q (want info, tasks, reset, step or close)", req.Op)}
}
