package play

import (
	"context"
	"errors"
	"net/http"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/model"
	"github.com/pats-rl/pats/lib/policy"
)

// serverAdapter does --load-adapter and --unload-adapter for the served
// policy s (issue 60): the adapter folder --tokenizer goes into the
// running engine under --model's name (dropped first if the engine holds
// one of that name already, as after a rerun), the policy requests it by
// that name, and then the engine drops --unload-adapter, the previous
// iteration's adapter, unless it does not hold it (an engine restarted
// since).
func (f Options) serverAdapter(ctx context.Context, s *policy.Served) error {
	sv := f.Server // the options' pairings are checked by Check (checkServer)
	if !sv.LoadAdapter {
		return nil
	}
	if !model.IsAdapter(f.Tokenizer) {
		return command.Usagef("--load-adapter: --tokenizer %s is not a LoRA adapter folder (no %s)", f.Tokenizer, model.AdapterConfigFile)
	}
	if err := s.UnloadAdapter(ctx, sv.Model); err != nil && !notHeld(err) {
		return err
	}
	if err := s.LoadAdapter(ctx, sv.Model, f.Tokenizer); err != nil {
		return err
	}
	if sv.UnloadAdapter != "" {
		if err := s.UnloadAdapter(ctx, sv.UnloadAdapter); err != nil && !notHeld(err) {
			return err
		}
	}
	return nil
}

// notHeld says whether an unload failed because the engine holds no
// adapter of that name (vLLM answers 404, SGLang 400).
func notHeld(err error) bool {
	var st *policy.StatusError
	return errors.As(err, &st) && (st.Code == http.StatusNotFound || st.Code == http.StatusBadRequest)
}
