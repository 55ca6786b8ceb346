package pipelines

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
)

// protocolArgs size the protocol's runs: a base of 4 demonstrations, an
// interface warm-up of 4, three iterations of 3 tasks x 2 episodes, no
// evaluation (the tests read the training files).
var protocolArgs = []string{
	"RUNS=runs", "PIPE_BUILD=0", "ENV=household", "BASE=b",
	"BASE_TASKS=4", "BASE_EPOCHS=1", "DEMO_TASKS=4", "SFT_EPOCHS=1", "SFT_BATCH=1024",
	"ITERS=3", "TASKS=3", "GROUP=2", "BOOT_TASKS=2", "MAX_CONTEXT=384",
}

// protocolRun makes one variant's iterations (log/2.txt: the rollouts,
// both branches and the updates of iterations 0-2) in dir and returns make's
// output.
func protocolRun(t *testing.T, root, bin, dir, variant string, extra ...string) string {
	t.Helper()
	args := append([]string{"-f", filepath.Join(root, "pipelines", "pats.mk"), "--no-print-directory", "BIN=" + bin,
		"VARIANT=" + variant, "RUN=" + variant, "EXPERT=" + filepath.Join(root, "pipelines", "expert", "household.yaml")}, protocolArgs...)
	if extra == nil {
		extra = []string{"runs/" + variant + "/log/2.txt"}
	}
	args = append(args, extra...)
	cmd := exec.Command("make", args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: make: %v\n%s", variant, err, out)
	}
	return string(out)
}

// metaOf reads the provenance of a table file of any of the loop's kinds.
func metaOf(p string) (table.Meta, error) {
	try := []func(string) ([]table.Meta, error){
		func(p string) ([]table.Meta, error) { _, m, err := table.ReadFiles[table.Trajectory](p); return m, err },
		func(p string) ([]table.Meta, error) {
			_, m, err := table.ReadFiles[table.ScaffoldItem](p)
			return m, err
		},
		func(p string) ([]table.Meta, error) { _, m, err := table.ReadFiles[table.Card](p); return m, err },
		func(p string) ([]table.Meta, error) { _, m, err := table.ReadFiles[table.Proposal](p); return m, err },
		func(p string) ([]table.Meta, error) {
			_, m, err := table.ReadFiles[table.ControllerState](p)
			return m, err
		},
		func(p string) ([]table.Meta, error) { _, m, err := table.ReadFiles[table.Decision](p); return m, err },
		func(p string) ([]table.Meta, error) {
			_, m, err := table.ReadFiles[table.TypeEvidence](p)
			return m, err
		},
	}
	var first error
	for _, f := range try {
		m, err := f(p)
		if err == nil && len(m) == 1 {
			return m[0], nil
		}
		if first == nil {
			first = err
		}
	}
	return table.Meta{}, fmt.Errorf("%s: no known kind: %v", p, first)
}

// episodeSources follows the provenance (pats.inputs) of files, relative to
// dir, back to every trajectory file they descend from, and returns the
// policies that wrote those (the rollout's pats.extra.policy), each with the
// trajectory file.
func episodeSources(t *testing.T, dir string, files []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		m, err := metaOf(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind == "trajectory" {
			if pol := m.Extra["policy"]; pol != "" {
				out[pol] = append(out[pol], p)
			}
		}
		for in := range m.Inputs {
			if strings.HasSuffix(in, ".parquet") {
				walk(in)
			}
		}
	}
	for _, f := range files {
		walk(f)
	}
	return out
}

// scaffoldTokens returns, per task type, the scaffold-role tokens of a
// rollout's episodes (the first episode of the type), and how many
// episodes carry any.
func scaffoldTokens(t *testing.T, p string) (map[string]string, int) {
	t.Helper()
	rows, _, err := table.ReadFiles[table.Trajectory](p)
	if err != nil {
		t.Fatal(err)
	}
	by, n := map[string]string{}, 0
	for _, r := range rows {
		var sc []string
		for i, role := range r.Roles {
			if int(role) < len(table.RoleNames) && table.RoleNames[role] == "scaffold" {
				sc = append(sc, fmt.Sprint(r.Tokens[i]))
			}
		}
		if len(sc) > 0 || r.NScaffoldTokens > 0 {
			n++
		}
		if _, ok := by[r.TaskType]; !ok {
			by[r.TaskType] = strings.Join(sc, " ")
		}
	}
	return by, n
}

// listParquet lists a run folder's table files under the given
// subfolders, relative to dir.
func listParquet(t *testing.T, dir, run string, subs ...string) []string {
	t.Helper()
	var out []string
	for _, s := range subs {
		ms, _ := filepath.Glob(filepath.Join(dir, "runs", run, s, "*.parquet"))
		for _, m := range ms {
			rel, _ := filepath.Rel(dir, m)
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// TestProtocol runs the variants of the paper's protocol for real, small,
// from one base, and checks from their files:
//   - pats's first snapshot holds no item, and its first items come from
//     iteration 0's cards of its own rollouts;
//   - no run but oracle-boot takes oracle or random-policy episodes as
//     scaffold evidence or rollout input (the files' provenance: every
//     trajectory file behind its snapshots, cards, proposals, states and
//     rollouts was written by one of its own checkpoints);
//   - static's RL contexts carry no scaffold token, frozen's carry one
//     unchanging snapshot from iteration 1 on (snap/1, made by iteration 0's
//     branch, and never updated);
//   - no-warmup trains no warm-up checkpoint (its ckpt/0 is the base's
//     bytes, it has no demonstrations), while pats trains one.
func TestProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seven small loops with make (a few minutes)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	root := repoRoot(t)
	bin := buildTools(t, root)
	dir := t.TempDir()
	variants := []string{"pats", "oracle-boot", "static", "frozen", "no-warmup", "grpo", "warm-start"}
	// the base first (the rule that builds a missing base calls make
	// without -f)
	protocolRun(t, root, bin, dir, "grpo", "RUN=b", "BASE=", "DEMO_TASKS=4", "warmup")
	outs := map[string]string{}
	for _, v := range variants {
		outs[v] = protocolRun(t, root, bin, dir, v)
	}
	run := func(v string, p ...string) string { return filepath.Join(append([]string{dir, "runs", v}, p...)...) }

	// The end of iteration 2 (log/2, the only line made) wrote the
	// TensorBoard files of iterations 0-2; nothing else has run (no
	// evaluation, no audit, no summary).
	for _, v := range variants {
		checkTensorboard(t, run(v), v != "static" && v != "grpo", map[string][]int{"traj": {0, 1, 2}})
	}

	// pats: an empty B_0, then items from iteration 0's own cards.
	snap0, _, err := table.ReadFiles[table.ScaffoldItem](run("pats", "snap", "0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap0) != 0 {
		t.Errorf("pats's snap/0 holds %d items before any rollout, want 0", len(snap0))
	}
	m1, err := metaOf(run("pats", "snap", "1.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m1.Inputs["runs/pats/cards/0.parquet"]; !ok {
		t.Errorf("pats's snap/1 is not made from iteration 0's cards: inputs %v", m1.Inputs)
	}
	cards0, _, err := table.ReadFiles[table.Card](run("pats", "cards", "0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	cardIDs := map[string]bool{}
	for _, c := range cards0 {
		cardIDs[c.CardID] = true
	}
	snap1, _, err := table.ReadFiles[table.ScaffoldItem](run("pats", "snap", "1.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap1) == 0 {
		t.Errorf("pats's snap/1 holds no item: iteration 0's EXPAND added nothing (the check below is empty)")
	}
	for _, it := range snap1 {
		if it.Created != 0 {
			t.Errorf("pats's snap/1 item %s was created at iteration %d, want 0", it.ID, it.Created)
		}
		for _, s := range it.Support {
			if !cardIDs[s] {
				t.Errorf("pats's snap/1 item %s is supported by %s, not a card of iteration 0", it.ID, s)
			}
		}
	}
	if _, err := os.Stat(run("pats", "boot")); err == nil {
		t.Errorf("pats has a boot folder")
	}

	// Provenance: the episodes behind every run's scaffold and rollouts.
	for _, v := range variants {
		files := listParquet(t, dir, v, "snap", "cards", "proposals", "state", "traj")
		src := episodeSources(t, dir, files)
		var foreign []string
		for pol, fs := range src {
			if !strings.HasPrefix(pol, "runs/"+v+"/ckpt/") {
				foreign = append(foreign, pol+" ("+strings.Join(fs, ", ")+")")
			}
		}
		sort.Strings(foreign)
		if v == "oracle-boot" {
			if len(src["oracle"]) == 0 || len(src["random"]) == 0 {
				t.Errorf("oracle-boot's scaffold does not descend from oracle and random episodes: %v", src)
			}
			continue
		}
		if len(foreign) > 0 {
			t.Errorf("%s takes episodes of other policies as input: %v", v, foreign)
		}
		if len(src) == 0 {
			t.Errorf("%s: no rollouts found behind its files", v)
		}
	}

	// static: no scaffold token in any RL context; frozen: one snapshot.
	for k := 0; k < 3; k++ {
		p := run("static", "traj", fmt.Sprintf("%d.parquet", k))
		if _, n := scaffoldTokens(t, p); n != 0 {
			t.Errorf("static's traj/%d: %d episodes carry scaffold tokens", k, n)
		}
		rows, metas, err := table.ReadFiles[table.Trajectory](p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.ScaffoldVersion != nil {
				t.Errorf("static's traj/%d: an episode rendered scaffold version %d, want none (NULL)", k, *r.ScaffoldVersion)
				break
			}
		}
		if len(metas[0].Inputs) != 0 {
			t.Errorf("static's traj/%d was rolled out with %v", k, metas[0].Inputs)
		}
	}
	if _, err := os.Stat(run("static", "snap")); err == nil {
		t.Errorf("static has snapshots")
	}
	f1, _ := scaffoldTokens(t, run("frozen", "traj", "1.parquet"))
	f2, _ := scaffoldTokens(t, run("frozen", "traj", "2.parquet"))
	for typ, s := range f2 {
		if s1, ok := f1[typ]; ok && s1 != s {
			t.Errorf("frozen: the scaffold of type %s changed between iterations 1 and 2", typ)
		}
	}
	var snaps []string
	for k := 1; k < 3; k++ {
		m, err := metaOf(run("frozen", "traj", fmt.Sprintf("%d.parquet", k)))
		if err != nil {
			t.Fatal(err)
		}
		for in, h := range m.Inputs {
			snaps = append(snaps, in+" "+h)
		}
	}
	if len(snaps) != 2 || snaps[0] != snaps[1] || !strings.HasPrefix(snaps[0], "runs/frozen/snap/1.parquet ") {
		t.Errorf("frozen's iterations 1 and 2 roll out with %v, want snap/1 both times", snaps)
	}
	if got := listParquet(t, dir, "frozen", "snap", "cards"); !cmp.Equal(got, []string{"runs/frozen/cards/0.parquet", "runs/frozen/snap/0.parquet", "runs/frozen/snap/1.parquet"}) {
		t.Errorf("frozen's scaffold branch ran after iteration 0: %v", got)
	}

	// no-warmup: ckpt/0 is the base; pats trained a warm-up.
	base, err := os.ReadFile(filepath.Join(dir, "runs", "b", "ckpt", "0", "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	nw, err := os.ReadFile(run("no-warmup", "ckpt", "0", "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	pw, err := os.ReadFile(run("pats", "ckpt", "0", "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(nw, base) || strings.Contains(outs["no-warmup"], "learn sft") {
		t.Errorf("no-warmup trained a warm-up checkpoint:\n%s", outs["no-warmup"])
	}
	if _, err := os.Stat(run("no-warmup", "demos.parquet")); err == nil {
		t.Errorf("no-warmup has warm-up demonstrations")
	}
	if bytes.Equal(pw, base) || !strings.Contains(outs["pats"], "-o runs/pats/ckpt/0 --epochs") {
		t.Errorf("pats trained no warm-up:\n%s", outs["pats"])
	}
	// The iteration lines report the zero-variance groups and the
	// controller's primitives.
	if !strings.Contains(outs["pats"], "[pats] iteration 2") || !strings.Contains(outs["pats"], "zero-variance groups ") || !strings.Contains(outs["pats"], "| control EXPAND ") {
		t.Errorf("pats's iteration lines:\n%s", outs["pats"])
	}
}
