package policy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/policy"
	"github.com/pats-rl/pats/lib/rollout"
)

// BenchmarkServedRollout: rollout throughput (episodes/s) of a served
// policy against the stand-in server (the tiny model on this machine's
// CPU, vLLM's request shape) with 1 and 16 episodes in flight, with no
// added latency (the stand-in's own compute bounds it) and with 20 ms
// added to every answer (a network and an engine's queue, where the
// episodes in flight overlap their waits). One op is one rollout of 4
// tasks x 4 episodes.
func BenchmarkServedRollout(b *testing.B) {
	dir := tinyCheckpoint(b)
	e, err := env.Open("household")
	if err != nil {
		b.Fatal(err)
	}
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		for _, conc := range []int{1, 16} {
			b.Run(fmt.Sprintf("latency=%s/concurrency=%d", latency, conc), func(b *testing.B) {
				s := standIn(b, dir)
				s.Latency = latency
				p := served(b, dir, s, policy.ServerVLLM, policy.Options{Temperature: 1, TopP: 1}, nil)
				o := rollout.Options{Env: e, Split: "train", Tasks: 4, Group: 4, Seed: 1, Policy: rollout.ServedPolicy{Served: p},
					Tok: p.Tok, MaxContext: 300, Workers: conc, Sampling: p.Rule(), PolicyHash: p.Hash}
				episodes := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					rows, err := rollout.Run(context.Background(), o)
					if err != nil {
						b.Fatal(err)
					}
					episodes += len(rows)
				}
				b.ReportMetric(float64(episodes)/b.Elapsed().Seconds(), "episodes/s")
				b.ReportMetric(float64(s.Requests())/b.Elapsed().Seconds(), "requests/s")
			})
		}
	}
}
