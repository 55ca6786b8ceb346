package env_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/env/internal/counterenv"
)

// TestExecTools: an exec: child's info answer carries the tools of the
// environment it serves (env.Serve sends them), and a child that declares
// none gives none.
func TestExecTools(t *testing.T) {
	want := counterenv.WithTools{}.Tools()
	got := env.Tools(openExec(t, "-tools"))
	if len(got) != len(want) {
		t.Fatalf("%d tools, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Action != want[i].Action || got[i].Description != want[i].Description ||
			(len(want[i].Parameters) > 0 && !reflect.DeepEqual(compact(t, got[i].Parameters), compact(t, want[i].Parameters))) {
			t.Errorf("tool %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := env.Tools(openExec(t)); got != nil {
		t.Errorf("a child without tools declares %v", got)
	}
}

// compact is raw JSON decoded, for comparing two spellings of one value.
func compact(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
