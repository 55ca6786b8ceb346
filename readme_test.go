package pats

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeIsALandingPage: README.md stays a page read in minutes: at
// most 150 lines, no paragraph of prose over 8 lines (tables and code
// blocks aside), the two set-up commands near the top and both Make
// targets real, and every docs/ page it sends a reader to present. The
// reference it sends to holds what the README no longer says.
func TestReadmeIsALandingPage(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 150 {
		t.Errorf("README.md has %d lines, want at most 150", len(lines))
	}
	run, inCode := 0, false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "```"):
			inCode, run = !inCode, 0
		case inCode || strings.TrimSpace(l) == "" || strings.HasPrefix(l, "|") || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "<!--"):
			run = 0
		default:
			if run++; run == 9 {
				t.Errorf("README.md:%d: a paragraph of more than 8 lines", i+1)
			}
		}
	}
	top := strings.Join(lines[:min(len(lines), 30)], "\n")
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := os.ReadFile("pipelines/demo.mk")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"demo", "test"} {
		if !strings.Contains(top, "make "+target) {
			t.Errorf("README.md: no `make %s` in its first 30 lines", target)
		}
		re := regexp.MustCompile(`(?m)^` + target + `:`)
		if !re.Match(mk) && !re.Match(demo) {
			t.Errorf("README.md names `make %s`, which no Make file defines", target)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(((?:docs|bench)/[^)#]+)`).FindAllStringSubmatch(string(b), -1) {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("README.md links %s: %v", m[1], err)
		}
	}
	for _, topic := range []string{"## Streams and exit codes", "## What a command refuses to write", "## Signals", "## Flag conventions"} {
		docHas(t, "docs/reference.md", topic, "the reference the README sends to")
	}
}
