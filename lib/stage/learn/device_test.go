package learn

import (
	"strings"
	"testing"

	"github.com/pats-rl/pats/lib/command"
)

// TestDeviceScores: on a device only trajectories scored at temperature 1
// (sampled at 1, or greedy) are trained; any other temperature is refused
// with one line naming the file, the temperature and the way out (exit 2);
// the CPU trains every temperature.
func TestDeviceScores(t *testing.T) {
	cases := []struct {
		device string
		temp   float64
		refuse bool
	}{
		{"", 0.7, false},
		{"cpu", 0.7, false},
		{"cuda", 1, false},
		{"cuda", 0.7, true},
		{"cuda", 0.4, true},
		{"cuda", 2, true},
	}
	for _, c := range cases {
		err := deviceScores(c.device, "traj/0.parquet", c.temp)
		if (err != nil) != c.refuse {
			t.Errorf("%q at temperature %g: %v, want refused %v", c.device, c.temp, err, c.refuse)
			continue
		}
		if err == nil {
			continue
		}
		msg := err.Error()
		for _, w := range []string{"traj/0.parquet", "temperature", "--device " + c.device, "learn on cpu"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%q at %g: %q does not name %q", c.device, c.temp, msg, w)
			}
		}
		if strings.Contains(msg, "\n") || command.Code(err) != command.ExitUsage {
			t.Errorf("%q at %g: %q (exit %d), want one line, exit 2", c.device, c.temp, msg, command.Code(err))
		}
	}
}
