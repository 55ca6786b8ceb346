package pats

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The docs that run as written: README.md's example block and every ```sh
// block of README.md and docs/*.md marked by a line "<!-- docs-run ... -->"
// just above it run, block after block of a file in one empty folder with
// the binaries as bin/, under bash -e -o pipefail. On small sizes: every
// --tasks above 16 becomes 16, every --group above 2 becomes 2 and every
// --epochs 1; a "go build" line is left out (the binaries are built). A command that exits non-zero fails
// the test, named with its last lines of output.
//
// The mark may carry settings before its first ':' or '-->':
//
//	qwen=PATH        write a random Qwen2.5-shaped checkpoint at PATH first
//	                 (qwenCheckpoint), the folder a user downloads;
//	max-tasks=N      cut --tasks above N to N instead of 16;
//	max-context=N    cut --max-context above N to N.

// docsRunMark marks a block to run.
const docsRunMark = "<!-- docs-run"

// docBlock is one marked block: its text and its mark's settings.
type docBlock struct {
	text string
	opts map[string]string
}

// markOptions reads the key=value settings of a mark line.
func markOptions(mark string) map[string]string {
	rest := strings.TrimPrefix(strings.TrimSpace(mark), docsRunMark)
	if i := strings.IndexAny(rest, ":"); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), "-->")
	opts := map[string]string{}
	for _, f := range strings.Fields(rest) {
		if k, v, ok := strings.Cut(f, "="); ok {
			opts[k] = v
		}
	}
	return opts
}

// docBlocks returns the marked ```sh blocks of a Markdown text, in order.
func docBlocks(md string) []docBlock {
	var blocks []docBlock
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), docsRunMark) || i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			continue
		}
		opts := markOptions(lines[i])
		var b []string
		for j := i + 2; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			b = append(b, lines[j])
			i = j
		}
		blocks = append(blocks, docBlock{text: strings.Join(b, "\n") + "\n", opts: opts})
	}
	return blocks
}

// prepare makes what a block's mark asks for in dir and returns the block
// cut to small sizes.
func prepare(t *testing.T, dir string, b docBlock) string {
	t.Helper()
	if p := b.opts["qwen"]; p != "" {
		if _, err := os.Stat(filepath.Join(dir, p, "config.json")); err != nil {
			qwenCheckpoint(t, filepath.Join(dir, p))
		}
	}
	text := b.text
	if n, err := strconv.Atoi(b.opts["max-tasks"]); err == nil {
		text = cutFlag(text, tasksFlag, "--tasks", n)
	}
	if n, err := strconv.Atoi(b.opts["max-context"]); err == nil {
		text = cutFlag(text, contextFlag, "--max-context", n)
	}
	return small(text)
}

// cutFlag replaces every value of flag above n by n.
func cutFlag(block string, re *regexp.Regexp, flag string, n int) string {
	return re.ReplaceAllStringFunc(block, func(m string) string {
		if v, _ := strconv.Atoi(strings.Fields(m)[1]); v > n {
			return flag + " " + strconv.Itoa(n)
		}
		return m
	})
}

var (
	tasksFlag   = regexp.MustCompile(`--tasks (\d+)`)
	contextFlag = regexp.MustCompile(`--max-context (\d+)`)
	groupFlag   = regexp.MustCompile(`--group (\d+)`)
	epochsFlag  = regexp.MustCompile(`--epochs \d+`)
)

// small cuts a block's sizes and leaves out its go build lines.
func small(block string) string {
	block = tasksFlag.ReplaceAllStringFunc(block, func(m string) string {
		if n, _ := strconv.Atoi(strings.Fields(m)[1]); n > 16 {
			return "--tasks 16"
		}
		return m
	})
	block = groupFlag.ReplaceAllStringFunc(block, func(m string) string {
		if n, _ := strconv.Atoi(strings.Fields(m)[1]); n > 2 {
			return "--group 2"
		}
		return m
	})
	block = epochsFlag.ReplaceAllString(block, "--epochs 1")
	var keep []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "go build ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// runBlock runs one block in dir with bin/ there; an error names the
// command that failed and the end of its output.
func runBlock(dir, block string) error {
	script := "set -eo pipefail\ntrap 'echo \"docs-run: failed ($?): $BASH_COMMAND\" >&2' ERR\n" + block
	c := exec.Command("bash", "-c", script)
	c.Dir = dir
	c.Env = append(os.Environ(), "PATS_PROGRESS=none", "LC_ALL=C")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		failed := ""
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "docs-run: failed") {
				failed = l
			}
		}
		return fmt.Errorf("%v: %s\n%s", err, failed, lastLines(out.String(), 8))
	}
	return nil
}

// linkBin gives dir a bin/ of the built binaries.
func linkBin(t *testing.T, dir string) {
	t.Helper()
	if err := os.Symlink(binDir, filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
}

func TestDocsRun(t *testing.T) {
	built(t)
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, doc := range append([]string{"README.md"}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := docBlocks(string(b))
		if doc == "README.md" && len(blocks) == 0 {
			t.Fatal("README.md: its example block is not marked " + docsRunMark)
		}
		if len(blocks) == 0 {
			continue
		}
		total += len(blocks)
		t.Run(doc, func(t *testing.T) {
			dir := t.TempDir()
			linkBin(t, dir)
			for i, bl := range blocks {
				start := time.Now()
				if err := runBlock(dir, prepare(t, dir, bl)); err != nil {
					t.Fatalf("block %d: %v", i+1, err)
				}
				t.Logf("block %d: %v", i+1, time.Since(start).Round(time.Millisecond))
			}
		})
	}
	if total < 2 {
		t.Errorf("%d marked blocks in README.md and docs/, want the README's and at least one in docs/", total)
	}
}

// TestDocsRunCatchesBroken: a broken documented command (a planted one)
// fails the run, named; sizes are cut and marks found as documented.
func TestDocsRunCatchesBroken(t *testing.T) {
	built(t)
	cases := []struct {
		name, md, want string // want: in the error; "" for success
	}{
		{"runs", "<!-- docs-run -->\n```sh\nbin/validate init -o snap/0.parquet\nbin/validate show snap/0.parquet\n```\n", ""},
		{"unknown flag", "<!-- docs-run -->\n```sh\nbin/validate init -o snap/0.parquet\nbin/validate show snap/0.parquet --no-such-flag\n```\n",
			"bin/validate show snap/0.parquet --no-such-flag"},
		{"missing input", "<!-- docs-run -->\n```sh\nbin/cards traj/0.parquet -o cards/0.parquet\n```\n", "bin/cards traj/0.parquet -o cards/0.parquet"},
		{"a failing stage in a pipe", "<!-- docs-run -->\n```sh\nbin/rollout --env nowhere --tasks 2 -o - | bin/evaluate -\n```\n", `unknown environment "nowhere"`},
		{"unmarked blocks do not run", "```sh\nfalse\n```\n<!-- docs-run -->\n```sh\ntrue\n```\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			linkBin(t, dir)
			var err error
			for _, bl := range docBlocks(c.md) {
				if err = runBlock(dir, prepare(t, dir, bl)); err != nil {
					break
				}
			}
			switch {
			case c.want == "" && err != nil:
				t.Errorf("want success, got %v", err)
			case c.want != "" && err == nil:
				t.Errorf("the broken command ran without error")
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error does not name %q: %v", c.want, err)
			}
		})
	}
	// A planted break in docs/real-models.md's walk: warm-up demonstrations
	// written without --tokenizer are in the built-in vocabulary, which
	// learn sft refuses for the Qwen folder.
	b, err := os.ReadFile(filepath.Join("docs", "real-models.md"))
	if err != nil {
		t.Fatal(err)
	}
	const good, broken = "--policy oracle --tokenizer $M", "--policy oracle"
	found := false
	for _, bl := range docBlocks(string(b)) {
		if bl.opts["qwen"] == "" || !strings.Contains(bl.text, good) {
			continue
		}
		found = true
		bl.text = strings.Replace(bl.text, good, broken, 1)
		dir := t.TempDir()
		linkBin(t, dir)
		err := runBlock(dir, prepare(t, dir, bl))
		if err == nil || !strings.Contains(err.Error(), "bin/learn sft") {
			t.Errorf("docs/real-models.md without --tokenizer for the demonstrations: %v, want learn sft to fail", err)
		}
	}
	if !found {
		t.Errorf("docs/real-models.md has no block marked qwen= with %q", good)
	}
	if got := small("bin/rollout --tasks 1500 --group 8 --epochs 4\ngo build -o bin/ ./cmd/...\nbin/rollout --tasks 8 --group 2"); got != "bin/rollout --tasks 16 --group 2 --epochs 1\nbin/rollout --tasks 8 --group 2" {
		t.Errorf("small: %q", got)
	}
}
