package table

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pats-rl/pats/lib/output"
)

// Meta is the provenance stored with every file: Parquet key-value metadata,
// or Arrow schema metadata. Keys are "pats.kind", "pats.schema_version",
// "pats.command", "pats.seed", "pats.inputs" (a JSON object, keys sorted) and
// "pats.extra.NAME" for each Extra entry; files written after SetStamp
// also carry "pats.toolkit_version", "pats.toolkit_commit", "pats.time" and
// "pats.host" (see Stamp).
type Meta struct {
	Kind          string            // row kind (see RegisterKind); filled from the row type on write when empty
	SchemaVersion int               // schema version of the row kind; filled from the registry on write when 0
	Command       string            // producing command line (see CommandLine)
	Seed          int64             // the producing command's seed
	Inputs        map[string]string // input path -> content hash (see HashFile)
	Extra         map[string]string // free-form provenance, e.g. a timestamp; kept out of everything else

	// Stamp is read from a file's pats.toolkit_*, pats.time and pats.host
	// keys; on write the process's stamp (SetStamp) is stored instead.
	Stamp Stamp

	// Path is the file the metadata was read from. ReadFiles sets it; it is
	// never stored.
	Path string
}

const (
	keyKind    = "pats.kind"
	keyVersion = "pats.schema_version"
	keyCommand = "pats.command"
	keySeed    = "pats.seed"
	keyInputs  = "pats.inputs"
	keyExtra   = "pats.extra."

	keyToolkitVersion = "pats.toolkit_version"
	keyToolkitCommit  = "pats.toolkit_commit"
	keyTime           = "pats.time"
	keyHost           = "pats.host"
)

// StampKeys are the metadata keys that say where and when a file was made:
// the only ones that differ between reruns of a command on the same inputs
// (see Stamp).
var StampKeys = []string{keyHost, keyTime, keyToolkitCommit, keyToolkitVersion}

// keyValues encodes m as sorted key/value pairs.
func (m Meta) keyValues() (keys, values []string) {
	kv := map[string]string{
		keyKind:    m.Kind,
		keyVersion: strconv.Itoa(m.SchemaVersion),
		keyCommand: m.Command,
		keySeed:    strconv.FormatInt(m.Seed, 10),
	}
	if len(m.Inputs) > 0 {
		b, _ := json.Marshal(m.Inputs) // map keys are sorted by encoding/json
		kv[keyInputs] = string(b)
	}
	for k, v := range m.Extra {
		kv[keyExtra+k] = v
	}
	if s := currentStamp(); s != nil {
		kv[keyToolkitVersion], kv[keyToolkitCommit], kv[keyTime], kv[keyHost] = s.Version, s.Commit, s.Time, s.Host
	}
	keys = make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values = make([]string, len(keys))
	for i, k := range keys {
		values[i] = kv[k]
	}
	return keys, values
}

// metaFrom decodes metadata; lookup returns a stored value. A file without
// any pats.* key (written by another tool) gives a zero Meta.
func metaFrom(path string, keys []string, lookup func(string) (string, bool)) (Meta, error) {
	var m Meta
	m.Path = path
	if v, ok := lookup(keyKind); ok {
		m.Kind = v
	}
	if v, ok := lookup(keyVersion); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return m, inputErr(path, "bad metadata "+keyVersion+" "+strconv.Quote(v)+" (want a version >= 1)", nil)
		}
		m.SchemaVersion = n
	}
	if v, ok := lookup(keyCommand); ok {
		m.Command = v
	}
	if v, ok := lookup(keySeed); ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return m, inputErr(path, "bad metadata "+keySeed+" "+strconv.Quote(v), nil)
		}
		m.Seed = n
	}
	if v, ok := lookup(keyInputs); ok && v != "" {
		if err := json.Unmarshal([]byte(v), &m.Inputs); err != nil {
			return m, inputErr(path, "bad metadata "+keyInputs, err)
		}
	}
	m.Stamp.Version, _ = lookup(keyToolkitVersion)
	m.Stamp.Commit, _ = lookup(keyToolkitCommit)
	m.Stamp.Time, _ = lookup(keyTime)
	m.Stamp.Host, _ = lookup(keyHost)
	for _, k := range keys {
		if name, ok := strings.CutPrefix(k, keyExtra); ok {
			if m.Extra == nil {
				m.Extra = map[string]string{}
			}
			m.Extra[name], _ = lookup(k)
		}
	}
	return m, nil
}

// CommandLine returns os.Args joined by spaces, each argument quoted for a
// POSIX shell where it needs quoting, so that pasting it reruns the command.
//
// Credentials are replaced by "REDACTED" (ScrubArgs): metadata travels
// with the file.
func CommandLine() string {
	q := ScrubArgs(os.Args)
	for i, a := range q {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ScrubArgs is args without credentials: the whole value of a flag named
// for a credential (--api-key VALUE, --api-key=VALUE, -token VALUE), even
// one that starts with '-' or holds blanks, and whatever Scrub finds in
// every other argument.
func ScrubArgs(args []string) []string {
	out := make([]string, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || !secretName(name) {
			out[i] = Scrub(a)
			continue
		}
		if hasValue {
			out[i] = name + "=REDACTED"
			if value == "" {
				out[i] = a
			}
			continue
		}
		out[i] = a
		if i+1 < len(args) {
			i++
			out[i] = "REDACTED"
		}
	}
	return out
}

// ShellQuote quotes s for a POSIX shell if it contains anything but letters,
// digits and -_./:=@,+%.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HashFile returns the content hash of a file for Meta.Inputs: the first 16
// bytes of its SHA-256, in hex (32 characters). For a directory it hashes the
// names and contents of the data files ReadFiles would read from it (*.parquet
// and *.arrow, sorted, hidden files skipped), so a sharded input has one hash.
// "-" (stdin, which cannot be read twice) gives "stdin".
func HashFile(path string) (string, error) {
	if path == "-" {
		return "stdin", nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", inputErr(path, "cannot read", err)
	}
	h := sha256.New()
	if st.IsDir() {
		files, err := dataFiles(path)
		if err != nil {
			return "", err
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				return "", inputErr(f, "cannot read", err)
			}
			fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f), st.Size())
			if err := hashInto(h, f); err != nil {
				return "", err
			}
		}
	} else if err := hashInto(h, path); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// InputHashes returns HashFile of each path, for Meta.Inputs.
func InputHashes(paths ...string) (map[string]string, error) {
	m := make(map[string]string, len(paths))
	for _, p := range paths {
		h, err := HashFile(p)
		if err != nil {
			return nil, err
		}
		m[p] = h
	}
	return m, nil
}

func hashInto(w io.Writer, path string) error {
	f, _, err := output.OpenRegular(path)
	if err != nil {
		return inputErr(path, "cannot read", unwrapPath(err))
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return inputErr(path, "cannot read", err)
	}
	return nil
}
