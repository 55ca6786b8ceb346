package pats

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoIgnoredFileTracked keeps build outputs out of the repository: a
// file that .gitignore names (a binary built at the root, a run folder)
// must not be committed by force or from before its pattern. It needs the
// checkout's git metadata, which a clone (and CI) has.
func TestNoIgnoredFileTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git not on PATH: %v", err)
	}
	if out, err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		t.Skip("not a git checkout (an exported tree): nothing to check")
	}
	out, err := exec.Command("git", "ls-files", "--cached", "--ignored", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("tracked files that .gitignore excludes (git rm --cached them):\n%s", s)
	}
}
