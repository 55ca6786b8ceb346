package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tensorboard"
)

// tbRun is fakeRun with what the event files read besides: traj/0 made
// with snap/0 as its rollout's scaffold (recorded under another folder,
// as in a moved run), stamped files, a lift audit and clip fractions.
func tbRun(t *testing.T) string {
	dir := fakeRun(t, 0.25)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	h, err := table.HashFile(filepath.Join(dir, "snap", "0.parquet"))
	must(err)
	table.SetStamp(table.Stamp{Version: "v", Time: "2026-12-01T00:00:00Z", Host: "h"})
	defer table.ClearStamp()
	trajs := []table.Trajectory{
		{GroupID: "a", TaskID: "t-a", TaskType: "pick", Goal: "put a mug in the sink", Success: true, Reward: 1, Steps: 2,
			Actions: []string{"go to sink", "put mug"}, Observations: []string{"you see a sink", "you are at the sink", "done"}},
		{GroupID: "a", TaskID: "t-a", TaskType: "pick", Goal: "put a mug in the sink", Sample: 1},
		{GroupID: "b", TaskID: "t-b", TaskType: "look", Goal: "look"},
		{GroupID: "c", TaskID: "t-c", TaskType: "look", Goal: "look", Success: true, Reward: 1},
	}
	must(table.WriteFile(filepath.Join(dir, "traj", "0.parquet"), trajs, table.Meta{Seed: 3, Inputs: map[string]string{"elsewhere/snap/0.parquet": h}}))
	f := func(x float64) *float64 { return &x }
	m := []table.TrainMetrics{{Phase: "grpo", Loss: 1, KL: f(0.1), ClipFrac: f(0.5)}, {Phase: "grpo", Loss: 3, KL: f(0.3)}}
	table.SetStamp(table.Stamp{Version: "v", Time: "2026-12-01T00:01:40Z", Host: "h"})
	must(table.WriteFile(filepath.Join(dir, "metrics", "grpo-0.parquet"), m, table.Meta{}))
	lift := []table.ScaffoldLift{
		{Scope: table.ScopeType, TaskType: "pick", Lift: 0.9},
		{Scope: table.ScopeAll, Lift: 0.25, SuccessWith: 0.5, SuccessWithout: 0.25, AllFailWith: 0.125, AllFailWithout: 0.375},
	}
	must(os.MkdirAll(filepath.Join(dir, "lift"), 0o755))
	must(table.WriteFile(filepath.Join(dir, "lift", "0.parquet"), lift, table.Meta{}))
	return dir
}

// TestTensorboardSources: one source per traj/K, lift/K and evaluation
// file, by step then part.
func TestTensorboardSources(t *testing.T) {
	dir := tbRun(t)
	srcs, err := TensorboardSources(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, s.File()+" <- "+s.Path)
	}
	want := []string{
		"events.out.tfevents.0000000000.eval-bare-valid_seen <- eval/0/bare-valid_seen.parquet",
		"events.out.tfevents.0000000000.eval-bare-valid_unseen <- eval/0/bare-valid_unseen.parquet",
		"events.out.tfevents.0000000000.eval-scaffold-valid_seen <- eval/0/scaffold-valid_seen.parquet",
		"events.out.tfevents.0000000000.eval-scaffold-valid_unseen <- eval/0/scaffold-valid_unseen.parquet",
		"events.out.tfevents.0000000000.lift <- lift/0.parquet",
		"events.out.tfevents.0000000000.traj <- traj/0.parquet",
		"events.out.tfevents.0000000002.eval-bare-valid_seen <- eval/2/bare-valid_seen.parquet",
		"events.out.tfevents.0000000002.eval-bare-valid_unseen <- eval/2/bare-valid_unseen.parquet",
		"events.out.tfevents.0000000002.eval-scaffold-valid_seen <- eval/2/scaffold-valid_seen.parquet",
		"events.out.tfevents.0000000002.eval-scaffold-valid_unseen <- eval/2/scaffold-valid_unseen.parquet",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
}

// TestTensorboardEvents: each source's scalars as the Parquet files have
// them, at the latest stamp of the files read, and one episode as text.
func TestTensorboardEvents(t *testing.T) {
	dir := tbRun(t)
	wall := float64(time.Date(2026, 12, 1, 0, 1, 40, 0, time.UTC).Unix())
	type sc struct {
		tag string
		v   float32
	}
	cases := []struct {
		src  TBSource
		wall float64
		want []sc
	}{
		{TBSource{Step: 0, Part: TBTraj, Path: "traj/0.parquet"}, wall, []sc{
			{"train/success", 0.5}, {"train/zero_variance_share", float32(2.0 / 3)}, {"train/all_failure_share", float32(1.0 / 3)},
			{"scaffold/items", 2}, {"scaffold/tokens", 8}, {"grpo/loss", 2}, {"grpo/kl", 0.2}, {"grpo/clip_fraction", 0.5}}},
		{TBSource{Step: 0, Part: TBLift, Path: "lift/0.parquet"}, wall, []sc{
			{"mechanism/lift", 0.25}, {"mechanism/success_with", 0.5}, {"mechanism/success_without", 0.25},
			{"mechanism/all_failure_with", 0.125}, {"mechanism/all_failure_without", 0.375}}},
		{TBSource{Step: 2, Part: "eval-scaffold-valid_unseen", Path: "eval/2/scaffold-valid_unseen.parquet"}, 0, []sc{
			{"eval/valid_unseen/scaffold/success", 0.6}, {"eval/valid_unseen/scaffold/tokens", 200}}},
	}
	for _, c := range cases {
		w, ev, err := TensorboardEvents(dir, c.src)
		if err != nil {
			t.Fatal(err)
		}
		if w != c.wall {
			t.Errorf("%s: wall time %v, want %v", c.src.Path, w, c.wall)
		}
		var got []sc
		var texts []tensorboard.Event
		for _, e := range ev {
			if e.WallTime != w || e.Step != int64(c.src.Step) {
				t.Errorf("%s: event %q at %v step %d, want %v step %d", c.src.Path, e.Tag, e.WallTime, e.Step, w, c.src.Step)
			}
			if e.IsText {
				texts = append(texts, e)
			} else {
				got = append(got, sc{e.Tag, e.Scalar})
			}
		}
		if d := cmp.Diff(c.want, got, cmp.AllowUnexported(sc{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.src.Path, d)
		}
		if c.src.Part != TBTraj {
			if len(texts) != 0 {
				t.Errorf("%s: texts %v", c.src.Path, texts)
			}
			continue
		}
		if len(texts) != 1 || texts[0].Tag != "train/episode" {
			t.Fatalf("%s: texts %+v, want one train/episode", c.src.Path, texts)
		}
		i := SampledEpisode(3, 0, 4)
		rows, _, _ := table.ReadFiles[table.Trajectory](filepath.Join(dir, "traj", "0.parquet"))
		if !strings.Contains(texts[0].Text, "task `"+rows[i].TaskID+"`") || !strings.Contains(texts[0].Text, "    goal: "+rows[i].Goal+"\n") {
			t.Errorf("the episode text does not show episode %d (%s):\n%s", i, rows[i].TaskID, texts[0].Text)
		}
	}
}

// TestEpisodeMarkdown: the turns in order in an indented block (no
// environment text read as Markdown), the outcome on the first line.
func TestEpisodeMarkdown(t *testing.T) {
	rows := []table.Trajectory{{TaskID: "t`1", TaskType: "pick", GroupID: "g", Goal: "put a mug\n# in the sink", Success: true, Reward: 1, Steps: 2,
		Actions: []string{"go to sink", "put mug"}, Observations: []string{"you see *a* sink", "at the sink", "done"}, Reads: []string{"mugs"}}}
	got := EpisodeMarkdown(4, 0, rows)
	want := "**iteration 4**, episode 1 of 1: task `t'1` (type `pick`, group `g`, sample 0): success, reward 1.000, 2 steps, skills read: mugs.\n\n" +
		"    goal: put a mug\n    # in the sink\n    observation: you see *a* sink\n    > go to sink\n    at the sink\n    > put mug\n    done\n"
	if got != want {
		t.Errorf("EpisodeMarkdown:\n%s\nwant:\n%s", got, want)
	}
	long := rows[0]
	long.Actions, long.Observations = nil, []string{"start"}
	for i := 0; i < 400; i++ {
		long.Actions = append(long.Actions, strings.Repeat("x", 100))
		long.Observations = append(long.Observations, strings.Repeat("y", 100))
	}
	text := EpisodeMarkdown(0, 0, []table.Trajectory{long})
	if len(text) > maxEpisodeText+1024 || !strings.Contains(text, "more turns not shown") {
		t.Errorf("a long episode gives %d bytes (cap %d), ending %q", len(text), maxEpisodeText, text[len(text)-60:])
	}
}
