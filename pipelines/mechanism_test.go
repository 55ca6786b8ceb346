package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// TestMechanismAudits runs the same pats loop twice, with the mechanism
// audits (MECHANISM=1: lift/K, truth/K every iteration, from bare/K) and
// without them, and checks that the audits are measures only: the loop's
// cards, proposals, decisions, snapshots and rollouts are the same rows
// either way, the control step reads only cards (of the play and of its
// bare replay, which pats reads as its absorption signal), snapshots and
// states, and the audits' files are there only with MECHANISM=1, made
// from the run's own checkpoints and snapshots, and summarised in
// summary.md.
func TestMechanismAudits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two small loops with make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dirs := map[string]string{"on": t.TempDir(), "off": t.TempDir()}
	for mode, dir := range dirs {
		flag := "MECHANISM=1"
		if mode == "off" {
			flag = "MECHANISM=0"
		}
		protocolRun(t, root, bin, dir, "grpo", "RUN=b", "BASE=", "DEMO_TASKS=4", "warmup")
		protocolRun(t, root, bin, dir, "pats", flag, "EVAL_TASKS=2", "EVAL_SPLITS=valid_seen", "runs/pats/summary.md")
	}
	run := func(mode string, p ...string) string {
		return filepath.Join(append([]string{dirs[mode], "runs", "pats"}, p...)...)
	}
	for k := 0; k < 3; k++ {
		for _, f := range []string{"traj/%d", "cards/%d", "proposals/%d", "decisions/%d", "snap/%d"} {
			name := strings.Replace(f, "%d", itoa(k), 1) + ".parquet"
			on, off := readAny(t, run("on", name)), readAny(t, run("off", name))
			if diff := cmp.Diff(off, on); diff != "" {
				t.Errorf("%s differs with the mechanism audits on (-off +on):\n%s", name, diff)
			}
		}
		lift, _, err := table.ReadFiles[table.ScaffoldLift](run("on", "lift", itoa(k)+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if len(lift) < 2 || lift[0].Scope != table.ScopeAll || lift[0].Tasks != 3 || lift[0].Episodes != 6 {
			t.Errorf("lift/%d: want an all row over 3 tasks and 6 episodes, then type rows; got %+v", k, lift)
		}
		bare, _, err := table.ReadFiles[table.Trajectory](run("on", "bare", itoa(k)+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range bare {
			if e.NScaffoldTokens != 0 || e.Policy != "runs/pats/ckpt/"+itoa(k) {
				t.Errorf("bare/%d: episode of %s with %d scaffold tokens, want ckpt/%d's without any", k, e.Policy, e.NScaffoldTokens, k)
			}
		}
		snap, _, err := table.ReadFiles[table.ScaffoldItem](run("on", "snap", itoa(k)+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		truth, _, err := table.ReadFiles[table.ItemTruth](run("on", "truth", itoa(k)+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if len(truth) != len(snap) {
			t.Errorf("truth/%d judges %d items of snap/%d's %d", k, len(truth), k, len(snap))
		}
		// pats reads the bare replay (its absorption signal, issue 59), so
		// bare/K is made either way; the audits proper only with MECHANISM=1
		for _, p := range []string{"lift", "truth"} {
			if _, err := os.Stat(run("off", p)); err == nil {
				t.Errorf("MECHANISM=0 made %s/", p)
			}
		}
	}
	// what reaches the loop: the control step reads the cards of the
	// iteration's play and of its bare replay, the snapshot and the state,
	// never an audit (truth/K holds the environment's own rules)
	for k := 0; k < 3; k++ {
		m, err := metaOf(run("off", "proposals", itoa(k)+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		sawBare := false
		for in := range m.Inputs {
			dir := filepath.Base(filepath.Dir(in))
			switch dir {
			case "cards", "snap", "state":
			case "bare-cards":
				sawBare = true
			default:
				t.Errorf("proposals/%d: control read %s", k, in)
			}
		}
		if !sawBare {
			t.Errorf("proposals/%d: control did not read the bare replay's cards (inputs %v)", k, m.Inputs)
		}
	}
	// the fade (FADE_END 0.8 of 3 iterations): snapshot 3, which iteration
	// 2's branch writes, is empty, and iteration 2's states say caps of 0
	if snap, _, err := table.ReadFiles[table.ScaffoldItem](run("off", "snap", "3.parquet")); err != nil || len(snap) != 0 {
		t.Errorf("snap/3: %d items (%v), want none: the fade has ended", len(snap), err)
	}
	states, _, err := table.ReadFiles[table.ControllerState](run("off", "state", "2.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		if st.CapItems == nil || *st.CapItems != 0 || st.CapTokens == nil || *st.CapTokens != 0 {
			t.Errorf("state/2 scope %q: caps %v %v, want 0 0", st.TaskType, st.CapItems, st.CapTokens)
		}
	}
	sum, err := os.ReadFile(run("on", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sum), "The mechanism by iteration") || !strings.Contains(string(sum), "Lift by task type") {
		t.Errorf("summary.md lacks the mechanism tables:\n%s", sum)
	}
	if off, _ := os.ReadFile(run("off", "summary.md")); strings.Contains(string(off), "The mechanism by iteration") {
		t.Errorf("summary.md of MECHANISM=0 has mechanism tables")
	}
}

// readAny reads the rows of one of the loop's files by its folder.
func readAny(t *testing.T, p string) any {
	t.Helper()
	var rows any
	var err error
	switch filepath.Base(filepath.Dir(p)) {
	case "traj":
		var r []table.Trajectory
		r, _, err = table.ReadFiles[table.Trajectory](p)
		rows = r
	case "cards":
		var r []table.Card
		r, _, err = table.ReadFiles[table.Card](p)
		rows = r
	case "proposals":
		var r []table.Proposal
		r, _, err = table.ReadFiles[table.Proposal](p)
		rows = r
	case "decisions":
		var r []table.Decision
		r, _, err = table.ReadFiles[table.Decision](p)
		rows = r
	case "snap":
		var r []table.ScaffoldItem
		r, _, err = table.ReadFiles[table.ScaffoldItem](p)
		rows = r
	}
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
