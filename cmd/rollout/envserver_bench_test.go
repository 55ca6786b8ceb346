package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/table"
)

// BenchmarkEnvServer is the throughput of rollouts against the example
// environment server (examples/envserver) slowed to 50 ms a step, with 1
// and 32 requests in flight (--env-concurrency): one op is a rollout of
// the counter environment's 5 training tasks x group 8 (40 episodes) with
// the random policy. bench/envserver.md holds the figures.
func BenchmarkEnvServer(b *testing.B) {
	url := startEnvServer(b, "--step-delay", "0.05", "--children", "4")
	for _, c := range []int{1, 32} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "t.parquet")
			var steps, episodes int
			for b.Loop() {
				var e bytes.Buffer
				args := []string{"rollout", "--env", url, "--env-concurrency", fmt.Sprint(c), "--split", "train", "--group", "8",
					"--policy", "random", "--seed", "1", "-o", out}
				if code := command.Run(app(), args, &e); code != 0 {
					b.Fatalf("exit %d: %s", code, e.String())
				}
				b.StopTimer()
				rows, _, err := table.ReadFiles[table.Trajectory](out)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range rows {
					steps += int(r.Steps)
				}
				episodes += len(rows)
				b.StartTimer()
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(episodes)/secs, "episodes/s")
			b.ReportMetric(float64(steps)/secs, "steps/s")
		})
	}
}
