package pats

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/pats-rl/pats/lib/table"
)

// TestNoSecretsInMetadata runs control with credentials written into the
// endpoint URL of an unreachable refiner (the scope gets no proposals and
// a reason; the command succeeds) and checks that neither the outputs'
// metadata nor stderr carries the user or the password.
func TestNoSecretsInMetadata(t *testing.T) {
	built(t)
	work := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "control"), "--cards", filepath.Join(fixDir, "cards.parquet"),
		"--scaffold", filepath.Join(fixDir, "snap.parquet"), "-o", "p.parquet", "--state-out", "s.parquet",
		"--refiner", "openai", "--endpoint", "http://alice:s3cret@127.0.0.1:1/v1", "--model", "m",
		"--retries", "0", "--timeout", "2s", "--on-refiner-failure", "continue")
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("control: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "s3cret") || strings.Contains(string(out), "alice") {
		t.Errorf("output keeps the credentials: %s", out)
	}
	_, metas, err := table.ReadFiles[table.Proposal](filepath.Join(work, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	m := metas[0]
	all := m.Command
	for k, v := range m.Extra {
		all += " " + k + "=" + v
	}
	if !strings.Contains(m.Command, "REDACTED@127.0.0.1:1") {
		t.Errorf("pats.command %q does not show the redacted endpoint", m.Command)
	}
	if strings.Contains(all, "s3cret") || strings.Contains(all, "alice") {
		t.Errorf("metadata keeps the credentials: %s", all)
	}
}

// plantEnv is an exec: environment that reports no name (so its command is
// stored as the name) and shows its whole environment in every observation:
// a credential it inherits reaches the trajectories. Its episodes fail, so
// that the controller expands and the refiner is asked.
const plantEnv = `#!/bin/bash
seen=$(env | tr -d '"\\' | tr '\n' ' ')
while IFS= read -r line; do
  case "$line" in
    *'"op":"info"'*) echo '{"protocol":1,"task_types":["t"],"splits":["train"],"vocabulary":["go","stop"]}' ;;
    *'"op":"tasks"'*) echo '{"tasks":["a","b"]}' ;;
    *'"op":"reset"'*) echo '{"task_id":"a","task_type":"t","goal":"g","observation":"env '"$seen"'","max_steps":2,"admissible":["go","stop"]}' ;;
    *'"op":"step"'*) echo '{"observation":"x","reward":0,"done":true,"valid":true,"score":0,"success":false}' ;;
    *) echo '{"ok":true}' ;;
  esac
done
`

// TestNoPlantedCredentialInOutputs runs a short loop through the stages
// (rollout from an exec: environment, cards, validate init, control with
// an OpenAI-compatible refiner, validate, learn sft, rollout from the
// checkpoint, learn grpo, evaluate) with credentials planted in every flag
// that takes a URL or a command (--endpoint's user, password and query,
// the exec: command's URL, assignment and --api-key), in the environment
// (OPENAI_API_KEY, which the refiner sends as its bearer token and the
// server echoes back in its error body, and three more), and checks that
// no output file (Parquet bytes, decoded values and metadata, checkpoints,
// the commands' stdout and stderr logs) holds any of them.
func TestNoPlantedCredentialInOutputs(t *testing.T) {
	built(t)
	planted := []string{"sk-env-PLANT1", "ghp-PLANT2", "aws-PLANT3", "hf-PLANT4", "carol-PLANT10", "pw@PLANT5",
		"PLANT5", "sk-query-PLANT6", "eve-PLANT11", "pw-exec-PLANT7", "sk-exec-PLANT8", "tok-exec-PLANT9"}
	// the refiner's server answers 401 with the request's headers and URL
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"bad credentials","url":%q,"headers":{`, r.URL.String())
		for k, v := range r.Header {
			fmt.Fprintf(w, "%q:%q,", k, strings.Join(v, " "))
		}
		fmt.Fprintf(w, `"Echo":"Authorization: %s"}}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	endpoint := strings.Replace(srv.URL, "://", "://carol-PLANT10:pw@PLANT5@", 1) + "/v1?api_key=sk-query-PLANT6"
	execEnv := "exec:./env.sh http://eve-PLANT11:pw-exec-PLANT7@host/x --api-key sk-exec-PLANT8 TOKEN=tok-exec-PLANT9"

	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "env.sh"), []byte(plantEnv), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"traj", "cards", "snap", "log"} {
		os.Mkdir(filepath.Join(work, d), 0o755)
	}
	environ := append(os.Environ(), "OPENAI_API_KEY=sk-env-PLANT1", "GITHUB_TOKEN=ghp-PLANT2",
		"AWS_SECRET_ACCESS_KEY=aws-PLANT3", "HF_TOKEN=hf-PLANT4", "LC_ALL=C")
	steps := []struct {
		name string
		args []string
	}{
		{"rollout-exec", []string{"rollout", "--env", execEnv, "--split", "train", "--tasks", "2", "--group", "2",
			"--policy", "random", "--iteration", "0", "--run", "r", "-o", "traj/0.parquet"}},
		{"cards", []string{"cards", "traj/0.parquet", "-o", "cards/0.parquet", "--evidence", "cards/evidence-0.parquet"}},
		{"validate-init", []string{"validate", "init", "-o", "snap/0.parquet"}},
		{"control", []string{"control", "--cards", "cards/0.parquet", "--scaffold", "snap/0.parquet", "-o", "proposals.parquet",
			"--state-out", "state.parquet", "--refiner", "openai", "--endpoint", endpoint, "--model", "m",
			"--retries", "0", "--timeout", "5s", "--on-refiner-failure", "continue"}},
		{"validate", []string{"validate", "--scaffold", "snap/0.parquet", "--proposals", "proposals.parquet",
			"--cards", "cards/0.parquet", "-o", "snap/1.parquet", "--decisions", "decisions.parquet"}},
		{"learn-sft", []string{"learn", "sft", "--init", "tiny", "--demos", filepath.Join(fixDir, "traj.parquet"),
			"-o", "ckpt0", "--epochs", "1", "--metrics", "sft.parquet"}},
		{"rollout-ckpt", []string{"rollout", "--env", "household", "--split", "train", "--tasks", "1", "--group", "2",
			"--policy", "ckpt0", "--max-context", "512", "--iteration", "1", "-o", "traj/1.parquet"}},
		{"learn-grpo", []string{"learn", "grpo", "--init", "ckpt0", "--kl", "0", "traj/1.parquet", "-o", "ckpt1",
			"--metrics", "grpo.parquet", "--advantages", "adv.parquet"}},
		{"evaluate", []string{"evaluate", "--policy", "random", "--env", execEnv, "--split", "train", "--tasks", "2",
			"-o", "eval.parquet"}},
	}
	for _, s := range steps {
		cmd := exec.Command(filepath.Join(binDir, s.args[0]), s.args[1:]...)
		cmd.Dir, cmd.Env = work, environ
		out, err := cmd.CombinedOutput()
		if werr := os.WriteFile(filepath.Join(work, "log", s.name+".log"), out, 0o644); werr != nil {
			t.Fatal(werr)
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, out)
		}
	}
	// the planted environment reached the loop (the refiner was asked, the
	// exec: child ran): the scan below has something to find
	if meta := parquetText(t, filepath.Join(work, "proposals.parquet")); !strings.Contains(meta, "401") {
		t.Errorf("control never reached the refiner's server: proposals hold\n%s", meta)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "traj", "0.parquet")); !strings.Contains(parquetText(t, filepath.Join(work, "traj", "0.parquet")), "PATH=") {
		t.Errorf("the exec: child's environment is not in its observations (%d bytes)", len(b))
	}
	files := 0
	err := filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "env.sh" {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := string(b)
		if strings.HasSuffix(p, ".parquet") {
			text += parquetText(t, p)
		}
		rel, _ := filepath.Rel(work, p)
		for _, s := range planted {
			if strings.Contains(text, s) {
				i := strings.Index(text, s)
				t.Errorf("%s holds the planted %q: ...%q...", rel, s, text[max(0, i-60):min(len(text), i+60)])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Errorf("scanned only %d files", files)
	}
}

// parquetText returns every value and metadata entry of a Parquet file,
// decoded (the column data is compressed, so the raw bytes do not show it).
func parquetText(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var b strings.Builder
	for _, kv := range pf.Metadata().KeyValueMetadata {
		b.WriteString(kv.Key + "=" + kv.Value + "\n")
	}
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		buf := make([]parquet.Row, 64)
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				for _, v := range r {
					b.WriteString(v.String())
					b.WriteByte(' ')
				}
			}
			if err != nil {
				break
			}
		}
		rows.Close()
	}
	return b.String()
}
