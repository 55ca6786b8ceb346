package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/table"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SettingsFile is the name of a run's record of its settings, at the run
// folder's root (pipelines/pats.mk writes it).
const SettingsFile = "settings.json"

// Settings is a run's record of what shaped it: every pipeline variable
// and the resolved variant settings and flags (Vars), the seeds among them,
// the base policy's path and weights hash, and the toolkit's version and
// commit that wrote the record.
type Settings struct {
	Vars           map[string]string `json:"settings"`
	Seeds          map[string]string `json:"seeds"`
	Base           string            `json:"base,omitempty"`
	BaseHash       string            `json:"base_hash,omitempty"`
	ToolkitVersion string            `json:"toolkit_version"`
	ToolkitCommit  string            `json:"toolkit_commit"`
}

// ParseVars reads NAME=VALUE lines (pipelines/pats.mk's resolved
// variables); blank lines are skipped. A line without "=" or a name twice
// is an error naming the line. Each line goes through table.Scrub, the
// scrubber of every output, so that a credential in a variable (an
// --endpoint with a user and password, an --api-key, a NAME_TOKEN=) is
// never recorded.
func ParseVars(r io.Reader) (map[string]string, error) {
	b, err := output.ReadAll(r, "", output.MaxTextBytes)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = table.Scrub(line)
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("line %d: want NAME=VALUE, got %s", i+1, table.Printable(strconv.Quote(line)))
		}
		if _, dup := vars[name]; dup {
			return nil, fmt.Errorf("line %d: %s given twice", i+1, name)
		}
		// the value alone too: a flag at its start (X_FLAGS=--api-key K)
		vars[name] = table.Scrub(strings.TrimSpace(value))
	}
	return vars, nil
}

// NewSettings makes the record of vars: the seeds are the variables whose
// names end in SEED.
func NewSettings(vars map[string]string, base, baseHash, version, commit string) Settings {
	s := Settings{Vars: vars, Seeds: map[string]string{}, Base: base, BaseHash: baseHash, ToolkitVersion: version, ToolkitCommit: commit}
	for k, v := range vars {
		if strings.HasSuffix(k, "SEED") {
			s.Seeds[k] = v
		}
	}
	return s
}

// JSON is the record as written: indented, keys sorted, a final newline.
func (s Settings) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // maps of strings and strings always encode
	return b.Bytes()
}

// LoadSettings reads a run folder's settings.json (or the file itself).
func LoadSettings(path string) (Settings, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, SettingsFile)
	}
	var s Settings
	b, err := output.ReadFile(path, output.MaxTextBytes)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %v", path, err)
	}
	if s.Vars == nil {
		return s, fmt.Errorf("%s: no settings", path)
	}
	return s, nil
}

// Markdown writes the record as a table of the variables, after a line on
// the toolkit, the base and the seeds.
func (s Settings) Markdown(w io.Writer) error {
	commit := s.ToolkitCommit
	if commit == "" {
		commit = "unknown commit"
	}
	// Every text of the record is printed through Printable (no escape
	// sequence, no line break reaches the terminal or the Markdown) and
	// Scrub (a record written before the scrubbing keeps no credential on
	// screen).
	p := func(s string) string { return table.Printable(table.Scrub(s)) }
	fmt.Fprintf(w, "toolkit %s at %s\n", p(s.ToolkitVersion), p(commit))
	if s.Base != "" {
		fmt.Fprintf(w, "base %s (weights file hash %s)\n", p(s.Base), p(s.BaseHash))
	} else {
		fmt.Fprintln(w, "no base policy")
	}
	fmt.Fprintf(w, "seeds %s\n\n", p(pairs(s.Seeds)))
	fmt.Fprintln(w, "| setting | value |\n| --- | --- |")
	for _, k := range sortedKeys(s.Vars) {
		v := s.Vars[k]
		if v == "" {
			v = "(empty)"
		}
		fmt.Fprintf(w, "| %s | %s |\n", table.MarkdownCell(k), table.MarkdownCell(table.Scrub(v)))
	}
	return nil
}

func pairs(m map[string]string) string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, k+"="+m[k])
	}
	return strings.Join(out, " ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
