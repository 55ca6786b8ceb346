package table

import (
	"os"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://user:key@host:8000/v1", "http://REDACTED@host:8000/v1"},
		{"--endpoint=https://sk-123@api.example/v1", "--endpoint=https://REDACTED@api.example/v1"},
		{"http://host/v1?x=a@b", "http://host/v1?x=a@b"},
		{"user@host", "user@host"},
		{"traj.parquet", "traj.parquet"},
	}
	for _, c := range cases {
		if got := Scrub(c.in); got != c.want {
			t.Errorf("Scrub(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{"control", "--endpoint", "http://alice:s3cret@127.0.0.1:1/v1"}
	if got := CommandLine(); strings.Contains(got, "s3cret") || strings.Contains(got, "alice") {
		t.Errorf("CommandLine() = %q keeps the credentials", got)
	}
}
