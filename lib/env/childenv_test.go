package env_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/env"
)

func TestChildEnv(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		want    []string
	}{
		{"credentials stay", []string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "AWS_SECRET_ACCESS_KEY=x", "HOME=/h", "GITHUB_TOKEN=t", "LC_ALL=C"},
			[]string{"PATH=/bin", "HOME=/h", "LC_ALL=C"}},
		{"PATS_EXEC_ENV names more", []string{"PATS_EXEC_ENV=MY_DATA, OTHER", "MY_DATA=/d", "OTHER=1", "OPENAI_API_KEY=sk-1"},
			[]string{"MY_DATA=/d", "OTHER=1"}},
		{"nothing", nil, []string{}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, env.ChildEnv(c.environ)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
