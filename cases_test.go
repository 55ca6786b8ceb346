package pats

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The golden bad-input cases: testdata/cases/<command>/<case>/ holds
//
//	cmd     the command line, run by bash in a fresh working folder with the
//	        binaries on PATH and $FIX naming the shared fixtures;
//	setup   (optional) a bash script run first in that folder to make inputs;
//	expect  "exit N" and, for a failing case, "stderr TEXT" (the one line
//	        must contain TEXT) or "stderr~ REGEXP" (it must match).
//
// Every case must exit as expected with exactly one line on stderr (none on
// success), leave the working folder and the fixtures exactly as they were
// (no output, no temporary, inputs and special files untouched), and leave
// /dev/null a character device.

// TestMain removes the binaries and fixtures the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(filepath.Dir(binDir))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	fixDir    string
	buildErr  error
)

// built skips the test in -short mode; otherwise it builds every binary and
// fixture into binDir and fixDir, once for all the tests.
func built(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds every binary and fixture")
	}
	buildOnce.Do(func() { binDir, fixDir, buildErr = buildAll() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

func TestCases(t *testing.T) {
	built(t)
	dirs, err := filepath.Glob(filepath.Join("testdata", "cases", "*", "*", "cmd"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	sort.Strings(dirs)
	fixBefore := snapshot(t, fixDir)
	for _, dir := range dirs {
		name := strings.TrimPrefix(filepath.ToSlash(dir), "testdata/cases/")
		t.Run(name, func(t *testing.T) { runCase(t, dir) })
	}
	if diff := cmp.Diff(fixBefore, snapshot(t, fixDir)); diff != "" {
		t.Errorf("the fixtures changed (-before +after):\n%s", diff)
	}
}

type expectation struct {
	exit   int
	stderr string
	re     *regexp.Regexp
}

func readExpect(t *testing.T, path string) expectation {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e expectation
	haveExit := false
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "exit":
			e.exit, err = strconv.Atoi(val)
			if err != nil {
				t.Fatalf("%s: %q", path, line)
			}
			haveExit = true
		case "stderr":
			e.stderr = val
		case "stderr~":
			e.re = regexp.MustCompile(val)
		default:
			t.Fatalf("%s: unknown line %q", path, line)
		}
	}
	if !haveExit || (e.exit != 0 && e.stderr == "" && e.re == nil) {
		t.Fatalf("%s: want an exit line and, for a failure, a stderr line", path)
	}
	return e
}

func runCase(t *testing.T, dir string) {
	t.Parallel()
	cmdLine, err := os.ReadFile(filepath.Join(dir, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	want := readExpect(t, filepath.Join(dir, "expect"))
	work := t.TempDir()
	// PATS_PROGRESS=none: a successful case has nothing on stderr (the long
	// stages' plain progress lines are TestProgressToPipe's business).
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "FIX="+fixDir, "LC_ALL=C", "PATS_PROGRESS=none")
	if setup, err := os.ReadFile(filepath.Join(dir, "setup")); err == nil {
		c := exec.Command("bash", "-euo", "pipefail", "-c", string(setup))
		c.Dir, c.Env = work, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("setup: %v\n%s", err, out)
		}
	}
	before := snapshot(t, work)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", strings.TrimSpace(string(cmdLine)))
	c.Dir, c.Env = work, env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err = c.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run: %v", err)
		}
		code = ee.ExitCode()
	}
	lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	if stderr.Len() == 0 {
		lines = nil
	}
	t.Logf("exit %d, stderr: %s", code, strings.TrimSpace(stderr.String()))
	if code != want.exit {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, want.exit, stderr.String())
	}
	switch {
	case want.exit == 0 && len(lines) != 0:
		t.Errorf("stderr on success:\n%s", stderr.String())
	case want.exit != 0 && len(lines) != 1:
		t.Errorf("%d lines on stderr, want 1:\n%s", len(lines), stderr.String())
	case want.exit != 0 && want.stderr != "" && !strings.Contains(lines[0], want.stderr):
		t.Errorf("stderr %q does not contain %q", lines[0], want.stderr)
	case want.exit != 0 && want.re != nil && !want.re.MatchString(lines[0]):
		t.Errorf("stderr %q does not match %q", lines[0], want.re)
	}
	if diff := cmp.Diff(before, snapshot(t, work)); diff != "" {
		t.Errorf("the working folder changed (-before +after):\n%s", diff)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device", os.DevNull)
	}
}

// snapshot describes every entry under root: its type and mode, and the
// content hash of a regular file or the target of a link.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			desc += " -> " + l
		}
		m[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildAll builds the binaries and the shared fixtures (testdata/cases
// fixtures.sh, run with the binaries on PATH) in a temporary folder.
func buildAll() (bin, fix string, err error) {
	root, err := os.MkdirTemp("", "pats-cases-")
	if err != nil {
		return "", "", err
	}
	bin, fix = filepath.Join(root, "bin"), filepath.Join(root, "fix")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	c := exec.Command(goTool, "build", "-o", bin+string(os.PathSeparator), "./cmd/...")
	if out, err := c.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	c = exec.Command(goTool, "build", "-o", filepath.Join(bin, "mkbad"), "./testdata/cases/mkbad")
	if out, err := c.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build mkbad: %v\n%s", err, out)
	}
	if err := os.Mkdir(fix, 0o755); err != nil {
		return "", "", err
	}
	script, err := filepath.Abs(filepath.Join("testdata", "cases", "fixtures.sh"))
	if err != nil {
		return "", "", err
	}
	c = exec.Command("bash", "-euo", "pipefail", script)
	c.Dir = fix
	c.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FIX="+fix)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return "", "", fmt.Errorf("fixtures.sh: %v\n%s", err, lastLines(out.String(), 20))
	}
	return bin, fix, nil
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
