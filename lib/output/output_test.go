package output

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/cleanup"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func mkCheckpoint(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	d := t.TempDir()
	in := filepath.Join(d, "in.parquet")
	os.WriteFile(in, []byte("x"), 0o644)
	hard := filepath.Join(d, "hard.parquet")
	os.Link(in, hard)
	link := filepath.Join(d, "link.parquet")
	os.Symlink(in, link)
	devlink := filepath.Join(d, "null")
	os.Symlink(os.DevNull, devlink)
	dangling := filepath.Join(d, "dangling")
	os.Symlink(filepath.Join(d, "nowhere"), dangling)
	fifo := filepath.Join(d, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(d, "ck")
	mkCheckpoint(t, ck, "{}")
	notck := filepath.Join(d, "important")
	os.MkdirAll(filepath.Join(notck, "sub"), 0o755)
	empty := filepath.Join(d, "empty")
	os.Mkdir(empty, 0o755)
	cklink := filepath.Join(d, "cklink")
	os.Symlink(ck, cklink)
	other := filepath.Join(d, "other.parquet")
	os.WriteFile(other, []byte("y"), 0o644)

	cases := []struct {
		name    string
		targets []Target
		want    string // substring of the refusal; "" for none
	}{
		{"new file", []Target{File("-o", filepath.Join(d, "new.parquet"))}, ""},
		{"existing regular file", []Target{File("-o", other)}, ""},
		{"same as input", []Target{File("-o", in)}, "names an input"},
		{"same via ./..", []Target{File("-o", filepath.Join(d, "sub", "..", "in.parquet"))}, "names an input"},
		{"hard link to input", []Target{File("-o", hard)}, "names an input"},
		{"symlink to input", []Target{File("-o", link)}, "names an input"},
		{"character device", []Target{File("-o", os.DevNull)}, "character device"},
		{"symlink to a device", []Target{File("-o", devlink)}, "character device"},
		{"dangling symlink", []Target{File("-o", dangling)}, "symbolic link to nothing"},
		{"fifo", []Target{File("-o", fifo)}, "FIFO"},
		{"file output is a folder", []Target{File("-o", empty)}, "is a folder"},
		{"two outputs one file", []Target{File("-o", other), File("--metrics", other)}, "name the same file"},
		{"checkpoint over a checkpoint", []Target{Checkpoint("-o", ck)}, ""},
		{"checkpoint into an empty folder", []Target{Checkpoint("-o", empty)}, ""},
		{"checkpoint over a foreign folder", []Target{Checkpoint("-o", notck)}, "holds no checkpoint"},
		{"checkpoint over a file", []Target{Checkpoint("-o", other)}, "is a file"},
		{"checkpoint through a link", []Target{Checkpoint("-o", cklink)}, "symbolic link"},
		{"checkpoint is the input", []Target{Checkpoint("-o", ck)}, "names an input"},
		{"checkpoint holds an input", []Target{Checkpoint("-o", ck)}, "holds an input"},
		{"skipped empty path", []Target{File("--metrics", "")}, ""},
		{"folder under a file", []Target{File("-o", filepath.Join(other, "x", "y.parquet"))}, "is not a folder"},
		{"new nested folders", []Target{Checkpoint("-o", filepath.Join(d, "a", "b", "ck"))}, ""},
	}
	for _, c := range cases {
		inputs := []string{in, "-", "", "tiny"}
		if c.name == "checkpoint is the input" {
			inputs = append(inputs, ck)
		}
		if c.name == "checkpoint holds an input" {
			inputs = append(inputs, filepath.Join(ck, "config.json"))
		}
		err := Check(inputs, c.targets...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !IsRefusal(err)):
			t.Errorf("%s: got %v, want a refusal with %q", c.name, err, c.want)
		}
	}
}

// TestCheckCheckpointNamedFolder: a checkpoint output that is the current
// folder (empty, so nothing else refuses it) or the root is refused by
// Check, before any work, under each of its names.
func TestCheckCheckpointNamedFolder(t *testing.T) {
	d := t.TempDir()
	t.Chdir(d)
	for _, p := range []string{".", "./", d, filepath.Join(d, "x", ".."), "/"} {
		err := Check([]string{"tiny"}, Checkpoint("-o", p))
		if err == nil || !IsRefusal(err) || !strings.Contains(err.Error(), "a checkpoint is written to a named folder") {
			t.Errorf("-o %s: got %v, want a refusal", p, err)
		}
	}
	if err := Check([]string{"tiny"}, Checkpoint("-o", "ck")); err != nil {
		t.Errorf("-o ck: %v", err)
	}
}

func TestUnitAllOrNothing(t *testing.T) {
	d := t.TempDir()
	a, b, ck := filepath.Join(d, "a"), filepath.Join(d, "b"), filepath.Join(d, "ck")
	os.WriteFile(a, []byte("old a"), 0o644)
	mkCheckpoint(t, ck, "old")
	var u Unit
	if err := u.File(a, writeString("new a")); err != nil {
		t.Fatal(err)
	}
	if err := u.Dir(ck, func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "config.json"), []byte("new"), 0o644)
	}); err != nil {
		t.Fatal(err)
	}
	if err := u.File(b, func(io.Writer) error { return errors.New("late failure") }); err == nil {
		t.Fatal("want the failure")
	}
	u.Abort()
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Errorf("a = %q after a failed run", got)
	}
	if got, _ := os.ReadFile(filepath.Join(ck, "config.json")); string(got) != "old" {
		t.Errorf("checkpoint = %q after a failed run", got)
	}
	ents, _ := os.ReadDir(d)
	if len(ents) != 2 {
		t.Errorf("left behind: %v", names(ents))
	}

	var v Unit
	defer v.Abort()
	v.File(a, writeString("new a"))
	v.Dir(ck, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "config.json"), []byte("new"), 0o644) })
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "new a" {
		t.Errorf("a = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(ck, "config.json")); string(got) != "new" {
		t.Errorf("checkpoint = %q", got)
	}
	if ents, _ := os.ReadDir(d); len(ents) != 2 {
		t.Errorf("left behind: %v", names(ents))
	}
}

func names(ents []os.DirEntry) []string {
	var s []string
	for _, e := range ents {
		s = append(s, e.Name())
	}
	return s
}

func TestWriteThroughSymlink(t *testing.T) {
	d := t.TempDir()
	real, link := filepath.Join(d, "real"), filepath.Join(d, "link")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real", link)
	if err := Write(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Errorf("target = %q", got)
	}
	if err := Write(os.DevNull, writeString("x")); !IsRefusal(err) {
		t.Errorf("writing over %s: %v, want a refusal", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device", os.DevNull)
	}
}

func TestRemoveStale(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "out.parquet")
	os.WriteFile(p, []byte("x"), 0o644)
	dead := filepath.Join(d, ".out.parquet.tmp-999999999-1")
	mine := filepath.Join(d, ".out.parquet.tmp-"+strconv.Itoa(os.Getpid())+"-1")
	old := filepath.Join(d, ".out.parquet.tmp-1-2") // pid 1 runs, but the file is old
	deadAside := filepath.Join(d, ".out.parquet.old-999999999-3")
	foreign := filepath.Join(d, ".other.parquet.tmp-999999999-1")
	for _, f := range []string{dead, mine, old, deadAside, foreign} {
		os.WriteFile(f, nil, 0o644)
	}
	past := time.Now().Add(-2 * StaleAge)
	os.Chtimes(old, past, past)
	RemoveStale(p)
	for f, want := range map[string]bool{dead: false, mine: true, old: false, deadAside: false, foreign: true, p: true} {
		_, err := os.Stat(f)
		if (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}

// An interruption (lib/cleanup run on SIGINT or SIGTERM) between staging
// and Commit removes every temporary and makes the commit rename nothing.
func TestInterruptBeforeCommit(t *testing.T) {
	defer func() { interrupted = false }()
	d := t.TempDir()
	a, ck := filepath.Join(d, "a"), filepath.Join(d, "ck")
	os.WriteFile(a, []byte("old"), 0o644)
	var u Unit
	defer u.Abort()
	if err := u.File(a, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if err := u.Dir(ck, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "config.json"), nil, 0o644) }); err != nil {
		t.Fatal(err)
	}
	cleanup.Run()
	if err := u.Commit(); err == nil {
		t.Fatal("the commit went ahead after the interruption")
	}
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Errorf("a = %q", got)
	}
	if ents, _ := os.ReadDir(d); len(ents) != 1 {
		t.Errorf("left behind: %v", names(ents))
	}
}

// Outputs are compared with the file behind stdin (when stdin is a regular
// file) and with every file under an input folder, and a checkpoint folder
// that also holds files of the user's is refused.
func TestCheckStdinFolderForeign(t *testing.T) {
	d := t.TempDir()
	in := filepath.Join(d, "t.parquet")
	os.WriteFile(in, []byte("x"), 0o644)
	hard := filepath.Join(d, "h.parquet")
	os.Link(in, hard)
	shards := filepath.Join(d, "s")
	os.MkdirAll(filepath.Join(shards, "old"), 0o755)
	for _, n := range []string{"a.parquet", "b.parquet", "old/c.parquet"} {
		os.WriteFile(filepath.Join(shards, n), []byte(n), 0o644)
	}
	ck := filepath.Join(d, "ck")
	mkCheckpoint(t, ck, "{}")
	for _, n := range []string{"model.safetensors", "optimizer.json", "model-00001-of-00002.safetensors", "generation_config.json", "agent.json", "provenance.json"} {
		os.WriteFile(filepath.Join(ck, n), nil, 0o644)
	}
	foreign := filepath.Join(d, "foreign")
	mkCheckpoint(t, foreign, "{}")
	os.WriteFile(filepath.Join(foreign, "notes.txt"), nil, 0o644)
	sub := filepath.Join(d, "sub")
	mkCheckpoint(t, sub, "{}")
	os.Mkdir(filepath.Join(sub, "runs"), 0o755)

	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()

	cases := []struct {
		name    string
		inputs  []string
		targets []Target
		want    string
	}{
		{"stdin's file", []string{"-"}, []Target{File("-o", in)}, "names the file read on stdin"},
		{"a hard link of stdin's file", []string{"-"}, []Target{File("-o", hard)}, "names the file read on stdin"},
		{"stdin not read", []string{shards}, []Target{File("-o", in)}, ""},
		{"a shard", []string{shards}, []Target{File("-o", filepath.Join(shards, "a.parquet"))}, "in the input folder"},
		{"a nested shard", []string{shards}, []Target{File("--metrics", filepath.Join(shards, "old", "c.parquet"))}, "in the input folder"},
		{"a new file in the folder", []string{shards}, []Target{File("-o", filepath.Join(shards, "new.parquet"))}, "is inside the input folder " + shards},
		{"a new file in a new subfolder", []string{shards}, []Target{File("-o", filepath.Join(shards, "new", "a.parquet"))}, "is inside the input folder"},
		{"a new checkpoint in an input checkpoint", []string{ck}, []Target{Checkpoint("-o", filepath.Join(ck, "next"))}, "is inside the input folder " + ck},
		{"a sibling sharing the folder's prefix", []string{shards}, []Target{File("-o", shards+"-new.parquet")}, ""},
		{"a checkpoint's own files", []string{in}, []Target{Checkpoint("-o", ck)}, ""},
		{"a checkpoint with notes", []string{in}, []Target{Checkpoint("-o", foreign)}, "holds notes.txt, which is no checkpoint file"},
		{"a checkpoint with a subfolder", []string{in}, []Target{Checkpoint("-o", sub)}, "holds runs, which is no checkpoint file"},
	}
	for _, c := range cases {
		err := Check(c.inputs, c.targets...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !IsRefusal(err)):
			t.Errorf("%s: got %v, want a refusal with %q", c.name, err, c.want)
		}
	}
	// The writer refuses the foreign folder too, and leaves it whole.
	err = WriteDir(foreign, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "config.json"), nil, 0o644) })
	if !IsRefusal(err) {
		t.Errorf("WriteDir over a folder with notes: %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "notes.txt")); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
}

// Interrupt before any temporary exists: no Unit makes one or commits
// after it, and nothing is written.
func TestInterruptBeforeAnyTemporary(t *testing.T) {
	reset := func() { commitMu.Lock(); interrupted, anyCommitted = false, false; commitMu.Unlock() }
	reset()
	defer reset()
	d := t.TempDir()
	a := filepath.Join(d, "a")
	if Interrupt() {
		t.Fatal("Interrupt reports a commit that did not happen")
	}
	var u Unit
	defer u.Abort()
	if err := u.File(a, writeString("new")); !errors.Is(err, ErrInterrupted) {
		t.Errorf("File after Interrupt: %v", err)
	}
	if err := u.Dir(filepath.Join(d, "ck"), func(string) error { return nil }); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Dir after Interrupt: %v", err)
	}
	if err := u.File("-", writeString("new")); !errors.Is(err, ErrInterrupted) {
		t.Errorf("stdout after Interrupt: %v", err)
	}
	if err := u.Commit(); err == nil {
		t.Error("a commit after Interrupt")
	}
	if ents, _ := os.ReadDir(d); len(ents) != 0 {
		t.Errorf("written: %v", names(ents))
	}
}

// TestUnitRemovesFoldersItMade: the folders a unit makes for its outputs
// (report plots' -o folder, a checkpoint's new parents) stay when it
// commits and go when it does not: on an error (Abort) and on an
// interruption (lib/cleanup), whose removal of the temporaries comes
// first. A folder that was there before, or that holds something else by
// then, stays.
func TestUnitRemovesFoldersItMade(t *testing.T) {
	for _, how := range []string{"commit", "abort", "interrupt", "abort, folder not empty", "abort, folder there before"} {
		t.Run(how, func(t *testing.T) {
			defer func() { commitMu.Lock(); interrupted = false; commitMu.Unlock() }()
			d := t.TempDir()
			top := filepath.Join(d, "plots")
			if how == "abort, folder there before" {
				os.Mkdir(top, 0o755)
			}
			var u Unit
			defer u.Abort()
			if err := u.File(filepath.Join(top, "sub", "a.png"), writeString("a")); err != nil {
				t.Fatal(err)
			}
			if err := u.Dir(filepath.Join(top, "ck"), func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "config.json"), nil, 0o644) }); err != nil {
				t.Fatal(err)
			}
			var want []string
			switch how {
			case "commit":
				if err := u.Commit(); err != nil {
					t.Fatal(err)
				}
				want = []string{"plots"}
			case "abort":
				u.Abort()
			case "interrupt":
				cleanup.Run()
			case "abort, folder not empty":
				os.WriteFile(filepath.Join(top, "notes"), nil, 0o644)
				u.Abort()
				want = []string{"plots"}
			case "abort, folder there before":
				u.Abort()
				want = []string{"plots"}
			}
			ents, _ := os.ReadDir(d)
			if diff := cmp.Diff(want, names(ents)); diff != "" {
				t.Errorf("left in the folder (-want +got):\n%s", diff)
			}
			if how != "commit" {
				if ents, _ := os.ReadDir(top); len(ents) > 0 && how == "abort, folder there before" {
					t.Errorf("left in the folder that was there: %v", names(ents))
				}
			}
		})
	}
}
