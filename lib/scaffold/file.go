package scaffold

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/table"
)

// Snapshot file metadata keys (table.Meta.Extra; stored as
// "pats.extra.<key>").
const (
	MetaVersion   = "version"   // snapshot version k, a decimal integer >= 0
	MetaParent    = "parent"    // Hash of the parent snapshot's items; empty for version 0
	MetaHash      = "hash"      // Hash of this snapshot's items
	MetaTokenizer = "tokenizer" // hash of the tokenizer the items' tokens were counted with
)

// PauseEnv names a test hook: when it holds a Go duration, WriteSnapshot
// sleeps that long after the temporary file is complete and before it is
// renamed over the target, so a test can kill the writer mid-commit. It is
// read only by WriteSnapshot and has no other effect.
const PauseEnv = "PATS_TEST_PAUSE_BEFORE_COMMIT"

// Snapshot is a snapshot file: the items of version Version and the hash of
// its parent.
type Snapshot struct {
	Items     []table.ScaffoldItem
	Version   int
	Parent    string // Hash of the parent's items; "" for version 0
	Tokenizer string // hash of the tokenizer Tokens were counted with ("" if unknown)
	Path      string // the file read (ReadSnapshot); not stored
	Meta      table.Meta
}

func snapErr(path, format string, a ...any) error {
	return &table.InputError{Path: path, Problem: fmt.Sprintf(format, a...)}
}

// ReadSnapshot reads one snapshot file. A folder, a file of another row
// kind, a file whose metadata has no version (or a malformed one) or no
// hash, items breaking the snapshot invariants (Check, token counts not
// checked), or items whose hash is not the stored one are input errors
// naming the file.
func ReadSnapshot(path string) (Snapshot, error) {
	if path != "-" {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return Snapshot{}, snapErr(path, "a snapshot is one file, not a folder")
		}
	}
	items, metas, err := table.ReadFiles[table.ScaffoldItem](path)
	if err != nil {
		return Snapshot{}, err
	}
	m := metas[0]
	v, ok := m.Extra[MetaVersion]
	if !ok {
		return Snapshot{}, snapErr(path, "snapshot metadata has no version (pats.extra.%s); make snapshots with validate init", MetaVersion)
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 0 || strconv.Itoa(k) != v {
		return Snapshot{}, snapErr(path, "snapshot metadata has a bad version %q (want an integer >= 0)", v)
	}
	parent := m.Extra[MetaParent]
	if k > 0 && parent == "" {
		return Snapshot{}, snapErr(path, "snapshot version %d has no parent hash (pats.extra.%s)", k, MetaParent)
	}
	if err := Check(items, nil); err != nil {
		return Snapshot{}, snapErr(path, "%v", err)
	}
	// The stored hash is what proposals (pats.extra.scaffold) and the next
	// snapshot (parent) refer to: items that no longer hash to it were
	// changed after the snapshot was committed.
	if h := Hash(items); m.Extra[MetaHash] != h {
		if m.Extra[MetaHash] == "" {
			return Snapshot{}, snapErr(path, "snapshot metadata has no hash (pats.extra.%s); make snapshots with validate init", MetaHash)
		}
		return Snapshot{}, snapErr(path, "snapshot's stored hash %s is not the hash of its items (%s): the file was changed after it was written", m.Extra[MetaHash], h)
	}
	for i := range items {
		if items[i].Support == nil {
			items[i].Support = []string{}
		}
	}
	Sort(items)
	return Snapshot{Items: items, Version: k, Parent: parent, Tokenizer: m.Extra[MetaTokenizer], Path: path, Meta: m}, nil
}

// WriteSnapshot writes s to path atomically (table.AtomicWrite) as Parquet,
// in canonical item order, with meta's provenance and the snapshot keys
// (version, parent, hash, tokenizer) added to meta.Extra. Stale temporary
// files of earlier writers of the same path that were killed mid-commit
// (".NAME.tmp-*") are removed first. path must name a file ("-" is refused:
// a snapshot is a commit, not a stream).
func WriteSnapshot(path string, s Snapshot, meta table.Meta) error {
	var u output.Unit
	defer u.Abort()
	if err := StageSnapshot(&u, path, s, meta); err != nil {
		return err
	}
	return u.Commit()
}

// StageSnapshot writes s as WriteSnapshot does, as one output of the run u:
// complete in a temporary file now, at path once u commits.
func StageSnapshot(u *output.Unit, path string, s Snapshot, meta table.Meta) error {
	if path == "" || path == "-" {
		return fmt.Errorf("a snapshot is written to a file, not %q", path)
	}
	items := Clone(s.Items)
	for i := range items {
		if items[i].Support == nil {
			items[i].Support = []string{}
		}
	}
	Sort(items)
	extra := map[string]string{}
	for k, v := range meta.Extra {
		extra[k] = v
	}
	extra[MetaVersion] = strconv.Itoa(s.Version)
	extra[MetaParent] = s.Parent
	extra[MetaHash] = Hash(items)
	extra[MetaTokenizer] = s.Tokenizer
	meta.Extra = extra
	meta.Path = ""
	RemoveStaleTemps(path)
	pause, _ := time.ParseDuration(os.Getenv(PauseEnv))
	return u.File(path, func(w io.Writer) error {
		if err := table.Write(w, table.Parquet, items, meta); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if pause > 0 {
			if f, ok := w.(interface{ Flush() error }); ok {
				if err := f.Flush(); err != nil {
					return err
				}
			}
			time.Sleep(pause)
		}
		return nil
	})
}

// RemoveStaleTemps removes the temporary files that writers of path left
// behind when they were killed before the rename (".NAME.tmp-PID-*" in the
// same folder): only those whose process PID is gone (or that are older
// than output.StaleAge), so that a writer of the same path running at
// this moment keeps its temporary (output.RemoveStale). Errors are
// ignored: a leftover temporary file is hidden and harmless to readers.
func RemoveStaleTemps(path string) {
	output.RemoveStale(path)
}
