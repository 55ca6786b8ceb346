package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSweepAudits runs scripts/sweep-audits.sh over a sweep folder with a
// stand-in audit binary that logs its arguments: credit for the finished
// runs with advantages, scaffold for the finished pats runs at ckpt/0 and
// every ITERS/4 iterations on the first and last iteration's episodes (the
// last rolled out with a scaffold that had items: pats-s1's was emptied by
// COMPRESS after iteration 5; pats-s3's last iteration drew no task type
// its scaffold had items for, so the late audit falls back to iteration
// 6); unfinished runs are passed over, and a second call audits nothing
// again.
func TestSweepAudits(t *testing.T) {
	root := repoRoot(t)
	bin, sweep := t.TempDir(), t.TempDir()
	logf := filepath.Join(t.TempDir(), "calls")
	// audit: logs its arguments; audit scaffold on pats-s3's traj/7 fails as
	// the real one does on episodes without scaffold tokens
	fake := "#!/bin/sh\necho \"$@\" >> " + logf + "\n" +
		"case \"$*\" in *pats-s3/traj/7.parquet*) echo 'audit: pats-s3/traj/7.parquet: no episode has scaffold tokens (roll out with --scaffold)' >&2; exit 2 ;; esac\n" +
		"echo \"| table | $1 |\"\n"
	if err := os.WriteFile(filepath.Join(bin, "audit"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	// validate show PATH: the first line of its output, with no items for
	// the snapshots marked PATH.empty
	show := "#!/bin/sh\n[ \"$1\" = show ] || exit 2\nif [ -f \"$2.empty\" ]; then echo 'snapshot 8: 0 items, sha256:00'; else echo 'snapshot 3: 2 items, sha256:11'; fi\necho '== general (9 tokens, 0 dropped)'\n"
	if err := os.WriteFile(filepath.Join(bin, "validate"), []byte(show), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"grpo-s1", "skillgate-s1", "broadcast-s2", "pats-s1", "pats-s2", "pats-s3"} {
		for _, d := range []string{"adv", "traj", "ckpt", "snap"} {
			if err := os.MkdirAll(filepath.Join(sweep, run, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if run != "pats-s2" { // pats-s2 is still running
			if err := os.WriteFile(filepath.Join(sweep, run, "summary.md"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// pats-s1 starts from an empty scaffold (snap/0) and COMPRESS empties
	// it after iteration 5
	for _, k := range []string{"0", "6", "7"} {
		if err := os.WriteFile(filepath.Join(sweep, "pats-s1", "snap", k+".parquet.empty"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sweep, "pats-s3", "snap", "0.parquet.empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() string {
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "sweep-audits.sh"), sweep, "8")
		cmd.Env = append(os.Environ(), "BIN="+bin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sweep-audits.sh: %v\n%s", err, out)
		}
		return string(out)
	}
	out := run()
	b, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	s := sweep
	want := []string{
		"credit " + s + "/grpo-s1/traj --advantages " + s + "/grpo-s1/adv -o " + s + "/grpo-s1/audit/credit.parquet --plot " + s + "/grpo-s1/audit/credit.png",
		"credit " + s + "/broadcast-s2/traj --advantages " + s + "/broadcast-s2/adv -o " + s + "/broadcast-s2/audit/credit.parquet --plot " + s + "/broadcast-s2/audit/credit.png",
		"credit " + s + "/skillgate-s1/traj --advantages " + s + "/skillgate-s1/adv -o " + s + "/skillgate-s1/audit/credit.parquet --plot " + s + "/skillgate-s1/audit/credit.png",
		"scaffold --policy " + s + "/pats-s1/ckpt/0," + s + "/pats-s1/ckpt/2," + s + "/pats-s1/ckpt/4," + s + "/pats-s1/ckpt/6," + s + "/pats-s1/ckpt/8 --traj " + s + "/pats-s1/traj/1.parquet --scaffold " + s + "/pats-s1/snap/1.parquet -o " + s + "/pats-s1/audit/scaffold-traj1.parquet --plot " + s + "/pats-s1/audit/scaffold-traj1.png",
		"scaffold --policy " + s + "/pats-s1/ckpt/0," + s + "/pats-s1/ckpt/2," + s + "/pats-s1/ckpt/4," + s + "/pats-s1/ckpt/6," + s + "/pats-s1/ckpt/8 --traj " + s + "/pats-s1/traj/5.parquet --scaffold " + s + "/pats-s1/snap/5.parquet -o " + s + "/pats-s1/audit/scaffold-traj5.parquet --plot " + s + "/pats-s1/audit/scaffold-traj5.png",
		"scaffold --policy " + s + "/pats-s3/ckpt/0," + s + "/pats-s3/ckpt/2," + s + "/pats-s3/ckpt/4," + s + "/pats-s3/ckpt/6," + s + "/pats-s3/ckpt/8 --traj " + s + "/pats-s3/traj/1.parquet --scaffold " + s + "/pats-s3/snap/1.parquet -o " + s + "/pats-s3/audit/scaffold-traj1.parquet --plot " + s + "/pats-s3/audit/scaffold-traj1.png",
		"scaffold --policy " + s + "/pats-s3/ckpt/0," + s + "/pats-s3/ckpt/2," + s + "/pats-s3/ckpt/4," + s + "/pats-s3/ckpt/6," + s + "/pats-s3/ckpt/8 --traj " + s + "/pats-s3/traj/7.parquet --scaffold " + s + "/pats-s3/snap/7.parquet -o " + s + "/pats-s3/audit/scaffold-traj7.parquet --plot " + s + "/pats-s3/audit/scaffold-traj7.png",
		"scaffold --policy " + s + "/pats-s3/ckpt/0," + s + "/pats-s3/ckpt/2," + s + "/pats-s3/ckpt/4," + s + "/pats-s3/ckpt/6," + s + "/pats-s3/ckpt/8 --traj " + s + "/pats-s3/traj/6.parquet --scaffold " + s + "/pats-s3/snap/6.parquet -o " + s + "/pats-s3/audit/scaffold-traj6.parquet --plot " + s + "/pats-s3/audit/scaffold-traj6.png",
	}
	if d := cmp.Diff(want, strings.Split(strings.TrimSpace(string(b)), "\n")); d != "" {
		t.Errorf("audit calls (-want +got):\n%s", d)
	}
	if !strings.Contains(out, "| table | scaffold |") || !strings.Contains(out, "== "+s+"/skillgate-s1: audit credit") ||
		!strings.Contains(out, "== "+s+"/pats-s1: the scaffold is empty from iteration 6 on; the late audit is on traj/5") ||
		!strings.Contains(out, "== "+s+"/pats-s1: the scaffold is empty before iteration 1; the early audit is on traj/1") ||
		!strings.Contains(out, "== "+s+"/pats-s3: traj/7: no episode has scaffold tokens") ||
		!strings.Contains(out, "== "+s+"/pats-s3: audit scaffold on traj/6") {
		t.Errorf("output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(s, "pats-s1", "audit", "scaffold-traj5.md")); err != nil {
		t.Errorf("the audit's table was not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s, "pats-s3", "audit", "scaffold-traj7.md")); err == nil {
		t.Error("the failed audit left a table")
	}
	if _, err := os.Stat(filepath.Join(s, "pats-s3", "audit", "scaffold-traj7.none")); err != nil {
		t.Errorf("the audit without scaffold tokens was not recorded: %v", err)
	}
	// A second call prints what is there and runs nothing.
	os.Remove(logf)
	if out2 := run(); out2 != out {
		t.Errorf("second call printed otherwise:\n%s", out2)
	}
	if _, err := os.Stat(logf); err == nil {
		t.Error("a second call ran the audits again")
	}
}
