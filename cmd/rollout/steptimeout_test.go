//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
)

// TestStepTimeoutOneClass: an exec: environment that misses --step-timeout
// fails the run with one exit code wherever it stops answering (info,
// tasks, reset, step): a failure while running (1), one line, no output.
func TestStepTimeoutOneClass(t *testing.T) {
	answers := map[string]string{
		"info":  `echo '{"protocol":1,"name":"slow","task_types":["t"],"splits":["train"],"vocabulary":["go"]}'`,
		"tasks": `echo '{"tasks":["a"]}'`,
		"reset": `echo '{"task_id":"a","task_type":"t","goal":"g","observation":"o","admissible":["go"],"max_steps":2,"features":[]}'`,
		"step":  `echo '{"observation":"o","reward":0,"done":true,"success":false,"score":0,"valid":true,"admissible":[],"features":[]}'`,
	}
	for _, slow := range []string{"info", "tasks", "reset", "step"} {
		t.Run(slow, func(t *testing.T) {
			dir := t.TempDir()
			script := "#!/bin/sh\nwhile IFS= read -r line; do\n  case \"$line\" in\n"
			for _, op := range []string{"info", "tasks", "reset", "step"} {
				act := answers[op]
				if op == slow {
					act = "sleep 600"
				}
				script += "    *'\"op\":\"" + op + "\"'*) " + act + " ;;\n"
			}
			script += "    *) echo '{\"ok\":true}' ;;\n  esac\ndone\n"
			p := filepath.Join(dir, "env.sh")
			if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "t.parquet")
			code, stderr := run(t, "--env", "exec:"+p, "--policy", "random", "--tasks", "1", "--step-timeout", "1s", "-o", out)
			if code != command.ExitFailure || !strings.Contains(stderr, "step timeout") {
				t.Errorf("slow at %s: exit %d (%q), want 1 naming the step timeout", slow, code, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("slow at %s: stderr %q is not one line", slow, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("slow at %s: output written", slow)
			}
		})
	}
}
