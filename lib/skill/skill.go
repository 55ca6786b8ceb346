package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/pats-rl/pats/lib/output"
	"github.com/pats-rl/pats/lib/words"
)

// Limits of the Agent Skills format.
const (
	MaxNameLen        = 64   // characters in a skill name
	MaxDescriptionLen = 1024 // characters in a description
	FileName          = "SKILL.md"
)

// Metadata keys that say which task types a skill is right or misleading
// for. Their values are comma-separated task types (a flow list "[a, b]" is
// accepted too).
const (
	MetaRightFor      = "right-for"
	MetaMisleadingFor = "misleading-for"
)

// Skill is one parsed SKILL.md.
type Skill struct {
	Name          string            // equal to the folder name
	Description   string            // what it does and when to use it; shown in slates
	Body          string            // the Markdown after the front matter, trimmed; read on demand
	RightFor      []string          // task types the procedure solves
	MisleadingFor []string          // task types the procedure looks right for but fails
	Metadata      map[string]string // all metadata entries, right-for and misleading-for included
	Path          string            // where it was read from (folder/SKILL.md)
}

// Related reports whether the skill is right or misleading for some task type.
func (s Skill) Related() bool { return len(s.RightFor) > 0 || len(s.MisleadingFor) > 0 }

// Library is a set of skills with unique names, kept in name order.
type Library struct {
	skills []Skill
	byName map[string]int
}

// ValidateName checks a skill name against the Agent Skills rules: 1-64
// characters, lowercase ASCII letters, digits and single hyphens, neither
// starting nor ending with a hyphen.
func ValidateName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return fmt.Errorf("name %q has %d characters, more than %d", name, utf8.RuneCountInString(name), MaxNameLen)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return fmt.Errorf("name %q starts or ends with a hyphen", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("name %q contains consecutive hyphens", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q contains %q: only lowercase letters, digits and hyphens are allowed", name, r)
		}
	}
	return nil
}

// Parse reads the text of a SKILL.md. dirName is the name of the folder that
// holds it (the skill name must equal it); an empty dirName skips that check.
// Errors name what is wrong but not the file: Load* wrap them with the path.
func Parse(text, dirName string) (Skill, error) {
	if err := checkText(text); err != nil {
		return Skill{}, err
	}
	fm, body, err := splitFrontMatter(text)
	if err != nil {
		return Skill{}, err
	}
	fields, meta, err := parseFrontMatter(fm)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{
		Name:        fields["name"],
		Description: fields["description"],
		Body:        strings.TrimSpace(body),
		Metadata:    meta,
	}
	if _, ok := fields["name"]; !ok {
		return Skill{}, errors.New("front matter has no name")
	}
	if err := ValidateName(s.Name); err != nil {
		return Skill{}, err
	}
	if dirName != "" && s.Name != dirName {
		return Skill{}, fmt.Errorf("name %q differs from its folder name %q", s.Name, dirName)
	}
	if strings.TrimSpace(s.Description) == "" {
		return Skill{}, errors.New("front matter has no description (or it is empty)")
	}
	if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionLen {
		return Skill{}, fmt.Errorf("description has %d characters, more than %d", n, MaxDescriptionLen)
	}
	s.RightFor = splitList(meta[MetaRightFor])
	s.MisleadingFor = splitList(meta[MetaMisleadingFor])
	for _, t := range s.RightFor {
		for _, u := range s.MisleadingFor {
			if t == u {
				return Skill{}, fmt.Errorf("task type %q is both %s and %s", t, MetaRightFor, MetaMisleadingFor)
			}
		}
	}
	return s, nil
}

// checkText refuses a SKILL.md that is not UTF-8 text: a NUL byte or a
// byte that is not UTF-8 (the body goes into the policy's context as is).
func checkText(text string) error {
	if i := strings.IndexByte(text, 0); i >= 0 {
		return fmt.Errorf("line %d holds a NUL byte; a SKILL.md is text", 1+strings.Count(text[:i], "\n"))
	}
	if !utf8.ValidString(text) {
		for i, r := range text {
			if r == utf8.RuneError {
				if _, n := utf8.DecodeRuneInString(text[i:]); n <= 1 {
					return fmt.Errorf("line %d holds a byte that is not UTF-8; a SKILL.md is UTF-8 text", 1+strings.Count(text[:i], "\n"))
				}
			}
		}
	}
	return nil
}

// splitFrontMatter separates "---\n...\n---\n" from the body.
func splitFrontMatter(text string) (string, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return "", "", errors.New("no YAML front matter: the file must start with a line \"---\"")
	}
	rest := text[4:]
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		return "", rest[3:], nil
	}
	i := strings.Index(rest, "\n---\n")
	if i < 0 {
		if strings.HasSuffix(rest, "\n---") {
			return rest[:len(rest)-4], "", nil
		}
		return "", "", errors.New("front matter is not closed by a line \"---\"")
	}
	return rest[:i], rest[i+5:], nil
}

// Top-level keys the Agent Skills format allows.
var knownKeys = map[string]bool{
	"name": true, "description": true, "license": true,
	"compatibility": true, "metadata": true, "allowed-tools": true,
}

// parseFrontMatter reads SKILL.md front matter (YAML, read with
// go.yaml.in/yaml/v3): a map of the allowed top-level keys to single
// values, and under "metadata" a map of keys to single values (a flow list
// such as [a, b] is kept as "a, b"). Anything else (block scalars, lists at
// the top level, deeper nesting, an unknown or repeated key) is an error
// naming the line of the file.
func parseFrontMatter(fm string) (map[string]string, map[string]string, error) {
	fields := map[string]string{}
	meta := map[string]string{}
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(fm))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, nil, frontMatterError(err)
	}
	// A second document would be dropped by a plain decode.
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, nil, fmt.Errorf("front matter line %d: a second YAML document (after ---); the front matter is one document", next.Line+1)
	} else if err != io.EOF {
		return nil, nil, frontMatterError(err)
	}
	if len(doc.Content) == 0 {
		return fields, meta, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("front matter line %d: expected \"key: value\" lines", root.Line+1)
	}
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		ln := key.Line + 1 // line 1 is the opening ---
		if !knownKeys[key.Value] {
			return nil, nil, fmt.Errorf("front matter line %d: unknown key %q (allowed: name, description, license, compatibility, metadata, allowed-tools)", ln, key.Value)
		}
		if _, dup := fields[key.Value]; dup {
			return nil, nil, fmt.Errorf("front matter line %d: duplicate key %q", ln, key.Value)
		}
		if key.Value == "metadata" {
			if val.Kind != yaml.MappingNode {
				if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
					fields[key.Value] = ""
					continue
				}
				return nil, nil, fmt.Errorf("front matter line %d: metadata must be a map of indented \"key: value\" lines", ln)
			}
			for m := 0; m+1 < len(val.Content); m += 2 {
				mk, mv := val.Content[m], val.Content[m+1]
				if _, dup := meta[mk.Value]; dup {
					return nil, nil, fmt.Errorf("front matter line %d: duplicate metadata key %q", mk.Line+1, mk.Value)
				}
				v, err := frontMatterValue(mv, true)
				if err != nil {
					return nil, nil, fmt.Errorf("front matter line %d (%s): %v", mk.Line+1, mk.Value, err)
				}
				meta[mk.Value] = v
			}
			fields[key.Value] = ""
			continue
		}
		v, err := frontMatterValue(val, false)
		if err != nil {
			return nil, nil, fmt.Errorf("front matter line %d (%s): %v", ln, key.Value, err)
		}
		fields[key.Value] = v
	}
	return fields, meta, nil
}

// frontMatterValue returns the single value of n; a flow list of values
// (list true) is joined with ", ".
func frontMatterValue(n *yaml.Node, list bool) (string, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return "", errors.New("block scalars (| or >) are not supported: write the value on one line")
	case n.Kind == yaml.ScalarNode:
		return n.Value, nil
	case list && n.Kind == yaml.SequenceNode:
		var vs []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return "", errors.New("a list of single values only")
			}
			vs = append(vs, c.Value)
		}
		return strings.Join(vs, ", "), nil
	}
	return "", errors.New("want a single value")
}

// frontMatterLine finds the line number in an error of the YAML parser.
var frontMatterLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// frontMatterError turns an error of the YAML parser into one naming the
// line of the file (the front matter starts on line 2).
func frontMatterError(err error) error {
	if m := frontMatterLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return fmt.Errorf("front matter line %d: %s", n+1, m[2])
	}
	return fmt.Errorf("front matter: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// splitList turns "a, b" or "[a, b]" into its trimmed, non-empty items.
func splitList(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var out []string
	for _, p := range strings.Split(v, ",") {
		p = strings.Trim(strings.TrimSpace(p), "\"'")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// New builds a library from skills; names must be unique.
func New(skills []Skill) (*Library, error) {
	l := &Library{skills: append([]Skill(nil), skills...), byName: map[string]int{}}
	sort.Slice(l.skills, func(i, j int) bool { return l.skills[i].Name < l.skills[j].Name })
	for i, s := range l.skills {
		if err := ValidateName(s.Name); err != nil {
			return nil, err
		}
		if _, dup := l.byName[s.Name]; dup {
			return nil, fmt.Errorf("two skills are named %q", s.Name)
		}
		l.byName[s.Name] = i
	}
	return l, nil
}

// LoadFS reads every root/<name>/SKILL.md of fsys. Folders without a
// SKILL.md are skipped; a bad SKILL.md is an error naming its path. A
// library with no skills is an error.
func LoadFS(fsys fs.FS, root string) (*Library, error) {
	return loadFS(fsys, root, func(p string) string { return p })
}

// LoadDir reads a user's skill library: a folder with one sub-folder per
// skill, each holding a SKILL.md. Paths in errors and in Skill.Path start
// with dir.
func LoadDir(dir string) (*Library, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("skill library: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("skill library %s: not a folder", dir)
	}
	return loadFS(os.DirFS(dir), ".", func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) })
}

// loadFS does the work of LoadFS; show turns a path of fsys into the one
// errors and Skill.Path report.
func loadFS(fsys fs.FS, root string, show func(string) string) (*Library, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("skill library %s: %w", show(root), err)
	}
	var skills []Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := path.Join(root, e.Name(), FileName)
		data, err := readSkillFile(fsys, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", show(p), err)
		}
		s, err := Parse(string(data), e.Name())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", show(p), err)
		}
		s.Path = show(p)
		skills = append(skills, s)
	}
	if len(skills) == 0 {
		return nil, fmt.Errorf("skill library %s: no <name>/%s found", show(root), FileName)
	}
	return New(skills)
}

// MaxFileBytes bounds a SKILL.md: a longer one is refused rather than read.
const MaxFileBytes = 1 << 20

// readSkillFile reads a SKILL.md that is a regular file (a link is
// followed) of at most MaxFileBytes; a device, a FIFO or a longer file is
// refused before it is read whole.
func readSkillFile(fsys fs.FS, p string) ([]byte, error) {
	st, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file but %s", output.FileKind(st.Mode()))
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes, more than the %d a SKILL.md may hold", st.Size(), MaxFileBytes)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("more than the %d bytes a SKILL.md may hold", MaxFileBytes)
	}
	return data, nil
}

// Len is the number of skills.
func (l *Library) Len() int { return len(l.skills) }

// Skills returns the skills in name order (a copy).
func (l *Library) Skills() []Skill { return append([]Skill(nil), l.skills...) }

// Names returns the skill names in order.
func (l *Library) Names() []string {
	out := make([]string, len(l.skills))
	for i, s := range l.skills {
		out[i] = s.Name
	}
	return out
}

// Get returns the skill called name.
func (l *Library) Get(name string) (Skill, bool) {
	i, ok := l.byName[name]
	if !ok {
		return Skill{}, false
	}
	return l.skills[i], true
}

// IsRight reports whether skill name is right for taskType.
func (l *Library) IsRight(name, taskType string) bool {
	s, ok := l.Get(name)
	return ok && contains(s.RightFor, taskType)
}

// IsMisleading reports whether skill name is misleading for taskType.
func (l *Library) IsMisleading(name, taskType string) bool {
	s, ok := l.Get(name)
	return ok && contains(s.MisleadingFor, taskType)
}

// Right lists the names of the skills right for taskType, in name order.
func (l *Library) Right(taskType string) []string {
	var out []string
	for _, s := range l.skills {
		if contains(s.RightFor, taskType) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Misleading lists the names of the skills misleading for taskType.
func (l *Library) Misleading(taskType string) []string {
	var out []string
	for _, s := range l.skills {
		if contains(s.MisleadingFor, taskType) {
			out = append(out, s.Name)
		}
	}
	return out
}

// TaskTypes lists every task type some skill is right or misleading for,
// sorted.
func (l *Library) TaskTypes() []string {
	set := map[string]bool{}
	for _, s := range l.skills {
		for _, t := range s.RightFor {
			set[t] = true
		}
		for _, t := range s.MisleadingFor {
			set[t] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Vocabulary lists, sorted and unique, the words of all names, descriptions
// and bodies as Words splits them.
func (l *Library) Vocabulary() []string {
	set := map[string]bool{}
	for _, s := range l.skills {
		for _, text := range []string{s.Name, s.Description, s.Body} {
			for _, w := range words.Split(text) {
				set[w] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
