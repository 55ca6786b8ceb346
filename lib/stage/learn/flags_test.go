package learn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/rl"
)

// grpoApp is a one-command app over learn grpo's flags that keeps what
// GRPOFrom read.
func grpoApp(got *GRPOOptions) *cli.App {
	return &cli.App{Name: "learn", Flags: GRPOFlags(), Action: func(c *cli.Context) error {
		o, err := GRPOFrom(c)
		*got = o
		return err
	}}
}

// TestGRPOCredits: --credit gigpo is broadcast with step credit gigpo, and
// a --step-credit none given beside it is refused (exit 2, one line naming
// both flags) rather than silently overridden; the other enum options are
// parsed by the stage and their bad values reported under their flags.
// Every case gives a trajectory file (GRPOFrom needs one; it reads none)
// and the required --init and -o.
func TestGRPOCredits(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		credit rl.Credit
		step   rl.StepCredit
		err    string // a substring of the one stderr line; "" for success
	}{
		{"default", nil, rl.Broadcast, rl.StepNone, ""},
		{"gigpo", []string{"--credit", "gigpo"}, rl.Broadcast, rl.StepGiGPO, ""},
		{"gigpo with gigpo", []string{"--credit", "gigpo", "--step-credit", "gigpo"}, rl.Broadcast, rl.StepGiGPO, ""},
		{"gigpo with none", []string{"--credit", "gigpo", "--step-credit", "none"}, 0, 0, "conflicts with --step-credit none"},
		{"none with gigpo", []string{"--step-credit", "none", "--credit", "gigpo"}, 0, 0, "--credit gigpo is broadcast with --step-credit gigpo"},
		{"skillgate with gigpo", []string{"--credit", "skillgate", "--step-credit", "gigpo"}, rl.SkillGate, rl.StepGiGPO, ""},
		{"skillgate", []string{"--credit", "skillgate"}, rl.SkillGate, rl.StepNone, ""},
		{"bad credit", []string{"--credit", "gipo"}, 0, 0, `--credit "gipo": want broadcast, skillgate or gigpo`},
		{"bad step credit", []string{"--step-credit", "all"}, 0, 0, `--step-credit "all": want none or gigpo`},
		{"bad adv-norm", []string{"--adv-norm", "z"}, 0, 0, `--adv-norm "z": want std or mean`},
		{"bad loss-agg", []string{"--loss-agg", "sum"}, 0, 0, `--loss-agg "sum": want seq-mean or token-mean`},
		{"bad select-baseline", []string{"--select-baseline", "mean"}, 0, 0, `--select-baseline "mean": want group or none`},
		{"bad select-norm", []string{"--select-norm", "episode"}, 0, 0, `--select-norm "episode": want channel or sequence`},
		{"bad schedule", []string{"--schedule", "linear"}, 0, 0, `--schedule "linear": want cosine or constant`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got GRPOOptions
			var stderr bytes.Buffer
			args := append(append([]string{"learn", "--init", "ckpt", "-o", "out"}, tc.args...), "traj.parquet")
			code := command.Run(grpoApp(&got), args, &stderr)
			if tc.err == "" {
				if code != 0 || stderr.Len() > 0 {
					t.Fatalf("exit %d, stderr %q", code, stderr.String())
				}
				if got.Config.Credit != tc.credit || got.Config.Step != tc.step {
					t.Errorf("credit %v, step %v; want %v, %v", got.Config.Credit, got.Config.Step, tc.credit, tc.step)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if code != command.ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], tc.err) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, stderr.String(), tc.err)
			}
		})
	}
}
