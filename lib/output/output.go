package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pats-rl/pats/lib/cleanup"
)

// Refusal is an output path refused before any work: bad usage.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

// IsRefusal reports whether err is or wraps a *Refusal.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

func refuse(format string, args ...any) error {
	return &Refusal{Msg: fmt.Sprintf(format, args...)}
}

// Target is one output of a run: its flag (for messages), its path, and
// whether it is a checkpoint folder rather than a file. An empty path is an
// output not asked for and is skipped.
type Target struct {
	Flag string
	Path string
	Dir  bool
}

// File and Checkpoint make targets.
func File(flag, path string) Target       { return Target{Flag: flag, Path: path} }
func Checkpoint(flag, path string) Target { return Target{Flag: flag, Path: path, Dir: true} }

// IsCheckpoint reports whether the folder dir holds a checkpoint (a
// config.json, or a LoRA adapter's adapter_config.json); it is the test
// Check uses before replacing a folder.
func IsCheckpoint(dir string) bool {
	for _, name := range []string{"config.json", "adapter_config.json"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Check refuses outputs that would clobber something that is not theirs to
// replace (see the package documentation). inputs are the paths the run
// reads: files, folders (every file under one counts) and "-" (the file
// behind stdin counts when stdin is a regular file); "" and names of no
// existing file are ignored. Each refusal names the flag and the path.
// The checks of one target run in order, the first refusal giving the
// reason: checkStdout (an output "-"), checkNamed (the current folder,
// the root, a name given twice), checkLink, checkInputs (an input named
// as an output or held by one), checkExisting, checkInside (inside an
// input folder), checkParent.
func Check(inputs []string, targets ...Target) error {
	ins := inputFiles(inputs)
	var outs []Target // the outputs checked before, their paths resolved
	stdout := ""      // the flag of the output that names stdout
	for _, t := range targets {
		if t.Path == "" {
			continue
		}
		if t.Path == "-" {
			if err := checkStdout(t, stdout); err != nil {
				return err
			}
			stdout = t.Flag
			continue
		}
		abs := resolved(t.Path)
		if err := checkNamed(t, abs, outs); err != nil {
			return err
		}
		fi, err := os.Stat(t.Path)
		if err := checkLink(t, err == nil); err != nil {
			return err
		}
		if err == nil {
			if err := checkInputs(t, abs, fi, ins); err != nil {
				return err
			}
			if err := checkExisting(t, fi); err != nil {
				return err
			}
		}
		if err := checkInside(t, abs, ins); err != nil {
			return err
		}
		if err := checkParent(t); err != nil {
			return err
		}
		outs = append(outs, Target{Flag: t.Flag, Path: abs})
	}
	return nil
}

// checkStdout refuses an output "-" that is a checkpoint, that a second
// flag names (other: the flag that named stdout before; "" none), or
// that would write a table to a terminal.
func checkStdout(t Target, other string) error {
	switch {
	case t.Dir:
		return refuse("%s: a checkpoint is a folder, not stdout", t.Flag)
	case other != "":
		return refuse("%s and %s both name stdout", other, t.Flag)
	case IsTerminal(os.Stdout):
		return refuse("%s -: stdout is a terminal; redirect it or name an output file", t.Flag)
	}
	return nil
}

// checkNamed refuses a checkpoint written to the current folder or the
// root (Unit.Dir would refuse it too, but only once the work is done) and
// an output another flag already names (outs, resolved).
func checkNamed(t Target, abs string, outs []Target) error {
	if t.Dir && (abs == resolved(".") || abs == string(filepath.Separator)) {
		return refuse("%s %s: a checkpoint is written to a named folder, not the current folder or the root", t.Flag, t.Path)
	}
	for _, o := range outs {
		if o.Path == abs {
			return refuse("%s and %s name the same file %s", o.Flag, t.Flag, t.Path)
		}
	}
	return nil
}

// checkLink refuses a checkpoint named by a symbolic link, and any other
// output named by a link to nothing (exists: whether the path leads to a
// file).
func checkLink(t Target, exists bool) error {
	lfi, err := os.Lstat(t.Path)
	if err != nil || lfi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	if t.Dir {
		return refuse("%s %s is a symbolic link; a checkpoint is written to a folder: name the folder itself", t.Flag, t.Path)
	}
	if !exists {
		return refuse("%s %s is a symbolic link to nothing; remove it or name another output", t.Flag, t.Path)
	}
	return nil
}

// checkInputs refuses an existing output that is an input of the run, or
// a checkpoint folder that holds one.
func checkInputs(t Target, abs string, fi os.FileInfo, ins []input) error {
	for _, in := range ins {
		if in.abs == abs || os.SameFile(in.fi, fi) {
			if in.name != "" {
				return refuse("%s %s names %s, an input of this run; write the output to another path", t.Flag, t.Path, in.name)
			}
			return refuse("%s %s names an input of this run; write the output to another path", t.Flag, t.Path)
		}
	}
	if t.Dir {
		for _, in := range ins {
			if in.abs != "" && strings.HasPrefix(in.abs, abs+string(filepath.Separator)) {
				return refuse("%s %s holds an input of this run (%s); write the checkpoint to another folder", t.Flag, t.Path, in.abs)
			}
		}
	}
	return nil
}

// checkInside refuses an output inside a folder the run reads.
func checkInside(t Target, abs string, ins []input) error {
	for _, in := range ins {
		if in.fi.IsDir() && in.abs != "" && strings.HasPrefix(abs, strings.TrimSuffix(in.abs, string(filepath.Separator))+string(filepath.Separator)) {
			return refuse("%s %s is inside the input folder %s; write the output outside the folders this run reads", t.Flag, t.Path, in.path)
		}
	}
	return nil
}

// input is one file a run reads: its identity, its resolved path (""
// for stdin) and, when it was not named itself, how to name it in a
// refusal (the file behind stdin, a file of an input folder).
type input struct {
	fi   os.FileInfo
	abs  string
	name string
	path string // as named on the command line (a named input only)
}

// inputFiles lists the files behind inputs: each named file or folder,
// every file under a named folder (links followed to what they name), and
// the file behind stdin ("-") when stdin is a regular file, so that an
// output that is any of them under another name is refused.
func inputFiles(inputs []string) []input {
	var ins []input
	for _, p := range inputs {
		if p == "" {
			continue
		}
		if p == "-" {
			if fi, err := os.Stdin.Stat(); err == nil && fi.Mode().IsRegular() {
				ins = append(ins, input{fi: fi, name: "the file read on stdin"})
			}
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		ins = append(ins, input{fi: fi, abs: resolved(p), path: p})
		if !fi.IsDir() {
			continue
		}
		filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil || q == p {
				return nil
			}
			qfi, err := os.Stat(q)
			if err != nil || qfi.IsDir() {
				return nil
			}
			ins = append(ins, input{fi: qfi, abs: resolved(q), name: q + " (in the input folder " + p + ")"})
			return nil
		})
	}
	return ins
}

// checkParent refuses an output whose folder cannot be made or written
// in: the nearest existing ancestor must be a folder this process may
// write in (so that the run does not fail only at its end).
func checkParent(t Target) error {
	dir := filepath.Dir(filepath.Clean(t.Path))
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return refuse("%s %s: %s is not a folder", t.Flag, t.Path, dir)
			}
			if !writable(dir) {
				return refuse("%s %s: cannot write in %s", t.Flag, t.Path, dir)
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// checkExisting refuses an existing path of the wrong kind for t.
func checkExisting(t Target, fi os.FileInfo) error {
	switch {
	case t.Dir && fi.Mode().IsRegular():
		return refuse("%s %s is a file; a checkpoint is written to a folder", t.Flag, t.Path)
	case t.Dir && fi.IsDir():
		if isEmptyDir(t.Path) {
			return nil
		}
		if !IsCheckpoint(t.Path) {
			return refuse("%s %s is a folder that holds no checkpoint; it would be replaced as a whole: name a new or empty folder", t.Flag, t.Path)
		}
		if name := foreignEntry(t.Path); name != "" {
			return refuse("%s %s holds %s, which is no checkpoint file; the folder would be replaced as a whole: move it away or name another folder", t.Flag, t.Path, name)
		}
		return nil
	case !t.Dir && fi.IsDir():
		return refuse("%s %s is a folder; name a file", t.Flag, t.Path)
	case !fi.Mode().IsRegular():
		return refuse("%s %s is not a regular file (%s); name a file", t.Flag, t.Path, kindOf(fi.Mode()))
	}
	return nil
}

// CarriedFiles are the files of a Hugging Face checkpoint that training
// does not change and that a checkpoint written from it carries byte for
// byte (tokenizer.json is carried too, as the model's own), agent.json
// included: learn copies them, checkpointFiles counts them.
var CarriedFiles = []string{"tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
	"vocab.json", "merges.txt", "chat_template.jinja", "generation_config.json", "agent.json"}

// checkpointFiles are the names of the files a checkpoint folder holds:
// what lib/model writes (config, weights, optimizer state), the files a
// checkpoint carries over (CarriedFiles) and learn's provenance.json.
// Sharded weights (model-00001-of-00002.safetensors) match
// IsCheckpointFile too. A test of learn writes a checkpoint of every kind
// and finds each of its files here.
var checkpointFiles = func() map[string]bool {
	m := map[string]bool{
		"config.json": true, "tokenizer.json": true, "model.safetensors": true, "model.safetensors.index.json": true,
		"optimizer.safetensors": true, "optimizer.json": true,
		// What learn writes beside the model: the checkpoint's provenance.
		"provenance.json": true,
		// A LoRA adapter checkpoint (lib/model): PEFT's two files and the
		// base's hash.
		"adapter_config.json": true, "adapter_model.safetensors": true, "adapter_base.json": true,
	}
	for _, name := range CarriedFiles {
		m[name] = true
	}
	return m
}()

var shardName = regexp.MustCompile(`^model-[0-9]+-of-[0-9]+\.safetensors$`)

// IsCheckpointFile reports whether name is a file a checkpoint folder
// holds. An existing checkpoint folder with any other entry (a user's
// notes, a subfolder) is refused as an output: replacing the folder as a
// whole, which keeps a kill from leaving half a checkpoint, would delete
// it.
func IsCheckpointFile(name string) bool {
	return checkpointFiles[name] || shardName.MatchString(name)
}

// foreignEntry returns the name of an entry of dir that is no checkpoint
// file (the first in name order), or "".
func foreignEntry(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !IsCheckpointFile(e.Name()) {
			return e.Name()
		}
	}
	return ""
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

func isEmptyDir(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return err == io.EOF
}

// resolved is the absolute path of p with symbolic links resolved as far as
// they exist.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	dir, base := filepath.Split(abs)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(r, base)
	}
	return abs
}

// target returns the path a write of path replaces: path itself, or the
// file a symbolic link at path points to (written through, the link kept).
func target(path string) (string, error) {
	lfi, err := os.Lstat(path)
	if err != nil || lfi.Mode()&os.ModeSymlink == 0 {
		return path, nil
	}
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", refuse("%s is a symbolic link to nothing; remove it or name another output", path)
	}
	return r, nil
}

// staged is one output waiting for Commit.
type staged struct {
	path string // final name
	tmp  string // temporary sibling holding the new content
	dir  bool
	buf  *bytes.Buffer // stdout: the bytes to write at Commit
	undo func()        // removes the temporary's entry from lib/cleanup
}

// Unit collects the outputs of one run and puts them in place together.
// The zero Unit is ready to use; call Abort (deferred) after Commit or on
// failure: after a successful Commit it does nothing.
type Unit struct {
	// Stdout receives the output named "-" at Commit; nil is the
	// process's stdout. A stage sets it to its standard output.
	Stdout io.Writer
	staged []staged
	made   []madeDirs // folders made for the outputs, removed again unless committed
	done   bool
}

// madeDirs are the folders one mkdirs call made, the deepest first, and
// the function that takes their removal off lib/cleanup's list.
type madeDirs struct {
	dirs []string
	undo func()
}

// mkdirs makes dir and its missing parents as os.MkdirAll does and
// records the folders it made: a unit that does not commit (an error, an
// interruption) removes them again, so that it leaves no empty folder
// behind. Their removal is registered with lib/cleanup before any
// temporary inside them, so that it runs after the temporaries' (newest
// first).
func (u *Unit) mkdirs(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := madeDirs{dirs: missing}
	m.undo = cleanup.Add(func() { interrupt(func() { removeEmpty(m.dirs) }) })
	u.made = append(u.made, m)
	return nil
}

// removeEmpty removes the folders dirs (the deepest first) while they are
// empty.
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// stdout returns where "-" goes.
func (u *Unit) stdout() io.Writer {
	if u.Stdout == nil {
		return os.Stdout
	}
	return u.Stdout
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && IsTerminal(f)
}

// Print stages what fn writes for stdout (a summary beside the files; a
// terminal is fine): Commit writes it before it puts any file in place, so
// a stdout that cannot be written (a full disk, a closed pipe) fails the
// command with nothing committed.
func (u *Unit) Print(fn func(w io.Writer) error) error {
	if stopped() {
		return ErrInterrupted
	}
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return err
	}
	u.staged = append(u.staged, staged{path: "-", buf: &b})
	return nil
}

// File writes the output file path through fn into a temporary sibling (or,
// for "-", a buffer for stdout). The writer given to fn is buffered. Once
// fn succeeds the temporary is complete and synced; it reaches path at
// Commit. An existing path that is not a regular file (or a link to one) is
// refused.
func (u *Unit) File(path string, fn func(w io.Writer) error) (err error) {
	if path == "" {
		return fmt.Errorf("output: empty output path")
	}
	if stopped() {
		return ErrInterrupted
	}
	if path == "-" {
		if isTerminal(u.stdout()) {
			return refuse("stdout is a terminal; redirect it or name an output file")
		}
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			return err
		}
		u.staged = append(u.staged, staged{path: "-", buf: &b})
		return nil
	}
	real, err := target(path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(real); err == nil {
		if err := checkExisting(Target{Flag: "output", Path: path}, fi); err != nil {
			return err
		}
	}
	dir, base := filepath.Split(real)
	if dir == "" {
		dir = "."
	}
	if err := u.mkdirs(dir); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	RemoveStale(real)
	tmp, err := os.CreateTemp(dir, tmpPattern(base))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	undo := cleanup.Add(func() { interrupt(func() { os.Remove(tmp.Name()) }) })
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
			undo()
		}
	}()
	if stopped() {
		return ErrInterrupted
	}
	bw := newBuffered(tmp)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ok = true
	u.staged = append(u.staged, staged{path: real, tmp: tmp.Name(), undo: undo})
	return nil
}

// Dir fills a temporary sibling folder of dir through fill; it replaces dir
// at Commit. An existing dir must be a folder (a checkpoint or empty).
func (u *Unit) Dir(dir string, fill func(tmp string) error) (err error) {
	dir = filepath.Clean(dir)
	if stopped() {
		return ErrInterrupted
	}
	if dir == "-" || dir == "." || dir == "/" {
		return refuse("%s: a checkpoint is written to a named folder", dir)
	}
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		if fi.Mode()&os.ModeSymlink != 0 {
			return refuse("%s is a symbolic link; a checkpoint is written to a folder", dir)
		}
		return refuse("%s is not a folder; a checkpoint is written to a folder", dir)
	}
	if fi, err := os.Stat(dir); err == nil {
		if err := checkExisting(Target{Flag: "output", Path: dir, Dir: true}, fi); err != nil {
			return err
		}
	}
	parent := filepath.Dir(dir)
	if err := u.mkdirs(parent); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	Recover(dir)
	RemoveStale(dir)
	tmp, err := os.MkdirTemp(parent, tmpPattern(filepath.Base(dir)))
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	undo := cleanup.Add(func() { interrupt(func() { os.RemoveAll(tmp) }) })
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
			undo()
		}
	}()
	if stopped() {
		return ErrInterrupted
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	syncDir(tmp)
	if err := hook("staged"); err != nil {
		return err
	}
	ok = true
	u.staged = append(u.staged, staged{path: dir, tmp: tmp, dir: true, undo: undo})
	return nil
}

// commitMu orders commits against an interruption: the temporaries that
// lib/cleanup removes on SIGINT or SIGTERM are removed either before any
// rename of a commit (which then fails as a whole) or after all of them.
var (
	commitMu     sync.Mutex
	interrupted  bool
	anyCommitted bool // a Unit has put its outputs in place
)

// ErrInterrupted is the error of a write or commit after Interrupt.
var ErrInterrupted = errors.New("output: interrupted before the outputs were put in place")

// Interrupt ends the run's writing, for an interruption (SIGINT or
// SIGTERM) that may come before any temporary exists: it waits for a
// commit in progress, and from then on no Unit makes a temporary or
// commits. It reports whether a Unit committed before it (then the run's
// outputs were already in place).
func Interrupt() (committed bool) {
	commitMu.Lock()
	defer commitMu.Unlock()
	interrupted = true
	return anyCommitted
}

// stopped reports whether Interrupt (or an interruption's removal of a
// temporary) has happened.
func stopped() bool {
	commitMu.Lock()
	defer commitMu.Unlock()
	return interrupted
}

// interrupt runs remove (a temporary's removal) as part of an
// interruption: no commit starts after it.
func interrupt(remove func()) {
	commitMu.Lock()
	defer commitMu.Unlock()
	interrupted = true
	remove()
}

// Commit writes the stdout output, then puts every staged file and
// folder in place, in the order staged. A Unit commits once. After an interruption
// (lib/cleanup ran) it renames nothing.
func (u *Unit) Commit() error {
	if u.done {
		return fmt.Errorf("output: unit committed twice")
	}
	commitMu.Lock()
	defer commitMu.Unlock()
	if interrupted {
		return ErrInterrupted
	}
	// stdout first: a write that fails (a closed pipe) leaves the files
	// unrenamed; a rename after it fails only if the folder changed.
	for _, s := range u.staged {
		if s.buf != nil {
			if _, err := u.stdout().Write(s.buf.Bytes()); err != nil {
				return fmt.Errorf("stdout: %w", unwrapPath(err))
			}
		}
	}
	u.done = true
	anyCommitted = true
	for i := range u.staged {
		s := &u.staged[i]
		if s.buf != nil {
			continue
		}
		var err error
		if s.dir {
			err = replaceDir(s.tmp, s.path)
		} else {
			err = hook("rename-file")
			if err == nil {
				err = os.Rename(s.tmp, s.path)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
		s.tmp = ""
		s.undo()
		syncDir(filepath.Dir(s.path))
	}
	for _, m := range u.made {
		m.undo() // the outputs are in them: they stay
	}
	u.made = nil
	return nil
}

// unwrapPath drops an *os.PathError's repetition of the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Abort removes every temporary not yet committed and, unless the unit
// committed, the folders it made for its outputs while they are empty.
func (u *Unit) Abort() {
	for i := range u.staged {
		if t := u.staged[i].tmp; t != "" {
			os.RemoveAll(t)
			u.staged[i].tmp = ""
			u.staged[i].undo()
		}
	}
	for i := len(u.made) - 1; i >= 0; i-- {
		removeEmpty(u.made[i].dirs)
		u.made[i].undo()
	}
	u.made = nil
}

// Write writes one file output through fn as a unit of its own.
func Write(path string, fn func(w io.Writer) error) error {
	var u Unit
	defer u.Abort()
	if err := u.File(path, fn); err != nil {
		return err
	}
	return u.Commit()
}

// WriteDir writes one folder output through fill as a unit of its own.
func WriteDir(dir string, fill func(tmp string) error) error {
	var u Unit
	defer u.Abort()
	if err := u.Dir(dir, fill); err != nil {
		return err
	}
	return u.Commit()
}

// The test points of a commit (SetTestHook): a function called before
// each rename, and whether folder replacement takes the rename-aside
// sequence even where an atomic exchange is available.
var (
	testHook   atomic.Pointer[func(step string) error]
	noExchange atomic.Bool
)

// SetTestHook is for tests only: from now on every commit calls at (when
// not nil) before each of its renames with the step's name, an error
// stopping the commit there as a kill at that instant would, and aside
// makes folder replacement rename the old folder aside instead of
// exchanging the two. It returns the function that restores the settings
// before it.
func SetTestHook(at func(step string) error, aside bool) (restore func()) {
	var p *func(string) error
	if at != nil {
		p = &at
	}
	oldHook, oldAside := testHook.Swap(p), noExchange.Swap(aside)
	return func() { testHook.Store(oldHook); noExchange.Store(oldAside) }
}

func hook(step string) error {
	if at := testHook.Load(); at != nil {
		return (*at)(step)
	}
	return nil
}

// replaceDir puts the folder tmp in place of dir. With dir absent it is one
// rename. Otherwise the two are exchanged atomically where the system can,
// and the old folder (now under tmp's name) is removed; else the old one is
// renamed aside, the new one renamed in, and the aside copy removed, with
// Recover restoring the aside copy if a kill leaves the name empty.
func replaceDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		if err := hook("rename-new"); err != nil {
			return err
		}
		return os.Rename(tmp, dir)
	}
	if !noExchange.Load() {
		if err := hook("exchange"); err != nil {
			return err
		}
		err := exchange(tmp, dir)
		if err == nil {
			if err := hook("remove-old"); err != nil {
				return err
			}
			os.RemoveAll(tmp)
			return nil
		}
		if !errors.Is(err, errNoExchange) {
			return err
		}
	}
	aside := filepath.Join(filepath.Dir(dir), asidePrefix(filepath.Base(dir))+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := hook("rename-aside"); err != nil {
		return err
	}
	if err := os.Rename(dir, aside); err != nil {
		return err
	}
	if err := hook("rename-new"); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(aside, dir)
		return err
	}
	if err := hook("remove-old"); err != nil {
		return err
	}
	os.RemoveAll(aside)
	return nil
}

// Recover restores a checkpoint folder that a kill between the two renames
// of a rename-aside replacement left missing: when dir does not exist and
// an aside copy (".NAME.old-*") does, the newest is renamed back. It
// reports whether it restored one. Loaders call it before reading.
func Recover(dir string) bool {
	dir = filepath.Clean(dir)
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		return false
	}
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return false
	}
	var best string
	var bestT time.Time
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), asidePrefix(base)) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if best == "" || fi.ModTime().After(bestT) {
			best, bestT = e.Name(), fi.ModTime()
		}
	}
	if best == "" {
		return false
	}
	return os.Rename(filepath.Join(parent, best), dir) == nil
}

// StaleAge is the age past which a temporary is removed even when the
// process that made it still seems to run (its id may have been reused).
const StaleAge = 24 * time.Hour

func tmpPattern(base string) string {
	return tmpPrefix(base) + strconv.Itoa(os.Getpid()) + "-*"
}

// tmpPrefix and asidePrefix begin the names of the temporaries of a path
// whose last element is base: ".NAME.tmp-" (an output being written) and
// ".NAME.old-" (a folder renamed aside while it is replaced); the writer's
// process id follows.
func tmpPrefix(base string) string   { return "." + base + ".tmp-" }
func asidePrefix(base string) string { return "." + base + ".old-" }

// RemoveStale removes the temporaries that writers of path left behind when
// they were killed: ".NAME.tmp-PID-*" and, while path exists, aside copies
// ".NAME.old-PID-*", whose process PID is gone or which are older than
// StaleAge. Errors are ignored: a leftover temporary is hidden and harmless
// to readers.
func RemoveStale(path string) {
	dir, base := filepath.Split(filepath.Clean(path))
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	_, statErr := os.Lstat(path)
	for _, e := range ents {
		n := e.Name()
		rest, ok := strings.CutPrefix(n, tmpPrefix(base))
		if !ok && statErr == nil {
			rest, ok = strings.CutPrefix(n, asidePrefix(base))
		}
		if !ok {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		id, err := strconv.Atoi(pid)
		if (err == nil && id != os.Getpid() && !alive(id)) || time.Since(fi.ModTime()) > StaleAge {
			os.RemoveAll(filepath.Join(dir, n))
		}
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
