package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/tensorboard"
)

// TBFolder is the folder under a run folder that holds its TensorBoard
// event files (report tensorboard, pipelines/pats.mk).
const TBFolder = "tb"

// The parts of a run's TensorBoard folder: one event file per input file
// of the run folder, named by its iteration and part.
const (
	TBTraj = "traj" // traj/K (with metrics/grpo-K and the snapshot the rollout used)
	TBLift = "lift" // lift/K
	TBEval = "eval" // eval/K/KIND-SPLIT, as the part eval-KIND-SPLIT
)

// TBSource is one input file of a run folder that an event file is
// drawn from.
type TBSource struct {
	Step int    // the iteration: traj/K's and lift/K's K, the checkpoint ckpt/K an evaluation evaluated
	Part string // TBTraj, TBLift, or eval-KIND-SPLIT
	Path string // the file, relative to the run folder
}

// File is the name of the source's event file under RUN/tb.
func (s TBSource) File() string { return tensorboard.FileName(int64(s.Step), s.Part) }

// TensorboardSources lists a run folder's inputs of event files, by step
// and part: every traj/K, lift/K and eval/K/{bare,scaffold}-SPLIT
// Parquet file there is.
func TensorboardSources(dir string) ([]TBSource, error) {
	var out []TBSource
	for _, sub := range []string{TBTraj, TBLift} {
		ks, err := numbered(filepath.Join(dir, sub), ".parquet")
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			out = append(out, TBSource{Step: k, Part: sub, Path: filepath.Join(sub, strconv.Itoa(k)+".parquet")})
		}
	}
	ks, err := numbered(filepath.Join(dir, "eval"), "")
	if err != nil {
		return nil, err
	}
	for _, k := range ks {
		ents, err := os.ReadDir(filepath.Join(dir, "eval", strconv.Itoa(k)))
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			base, ok := strings.CutSuffix(e.Name(), ".parquet")
			kind, _, _ := strings.Cut(base, "-")
			if !ok || strings.HasPrefix(base, ".") || (kind != "bare" && kind != "scaffold") {
				continue
			}
			out = append(out, TBSource{Step: k, Part: TBEval + "-" + base, Path: filepath.Join("eval", strconv.Itoa(k), e.Name())})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Step != out[j].Step {
			return out[i].Step < out[j].Step
		}
		return out[i].Part < out[j].Part
	})
	return out, nil
}

// stampTime is the latest time the files of metas were written (their
// pats.time stamps) in seconds since 1970; 0 when none has a stamp.
func stampTime(metas ...table.Meta) float64 {
	var t float64
	for _, m := range metas {
		if p, err := time.Parse(time.RFC3339, m.Stamp.Time); err == nil && float64(p.Unix()) > t {
			t = float64(p.Unix())
		}
	}
	return t
}

// TensorboardEvents reads the events of one source of a run folder and
// the wall time they carry: the latest pats.time stamp of the files read
// (when they were written, so the same files give the same events), 0
// where none has one. A source gives:
//
//   - traj/K: train/success (share of traj/K's episodes), train/zero_variance_share
//     and train/all_failure_share (of its GRPO groups); scaffold/items and
//     scaffold/tokens of the snapshot the rollout was given (the snap/N
//     file whose hash traj/K's provenance records); grpo/loss, grpo/kl and
//     grpo/clip_fraction, means over metrics/grpo-K's optimizer steps (kl
//     and clip_fraction over the steps that have one); and train/episode,
//     one episode of traj/K drawn with the file's seed and K, as Markdown.
//   - lift/K, its overall row: mechanism/lift, mechanism/success_with,
//     mechanism/success_without, mechanism/all_failure_with and
//     mechanism/all_failure_without.
//   - eval/K/KIND-SPLIT, its overall row: eval/SPLIT/CONTEXT/success and
//     eval/SPLIT/CONTEXT/tokens (CONTEXT no_scaffold for bare, else
//     scaffold).
func TensorboardEvents(dir string, s TBSource) (float64, []tensorboard.Event, error) {
	p := filepath.Join(dir, s.Path)
	switch {
	case s.Part == TBTraj:
		return trajEvents(dir, s.Step, p)
	case s.Part == TBLift:
		return overallEvents(p, s.Step, func(r table.ScaffoldLift) (string, []tagValue) {
			return r.Scope, []tagValue{{"mechanism/lift", r.Lift}, {"mechanism/success_with", r.SuccessWith},
				{"mechanism/success_without", r.SuccessWithout}, {"mechanism/all_failure_with", r.AllFailWith},
				{"mechanism/all_failure_without", r.AllFailWithout}}
		})
	case strings.HasPrefix(s.Part, TBEval+"-"):
		kind, split, _ := strings.Cut(strings.TrimPrefix(s.Part, TBEval+"-"), "-")
		ctx := "scaffold"
		if kind == "bare" {
			ctx = "no_scaffold"
		}
		return overallEvents(p, s.Step, func(r table.EvalMetrics) (string, []tagValue) {
			return r.Scope, []tagValue{{"eval/" + split + "/" + ctx + "/success", r.Success}, {"eval/" + split + "/" + ctx + "/tokens", r.Tokens}}
		})
	}
	return 0, nil, fmt.Errorf("tensorboard: unknown part %q", s.Part)
}

// tagValue is one scalar of an event file before it has a step and a
// wall time.
type tagValue struct {
	tag string
	v   float64
}

// overallEvents reads a file of rows of kind T and returns the scalars
// that values gives for its overall row (scope all), at step k and the
// file's stamp; none when it has no such row.
func overallEvents[T any](path string, k int, values func(T) (scope string, tv []tagValue)) (float64, []tensorboard.Event, error) {
	rows, metas, err := table.ReadFiles[T](path)
	if err != nil {
		return 0, nil, err
	}
	w := stampTime(metas...)
	for _, r := range rows {
		scope, tv := values(r)
		if scope != table.ScopeAll {
			continue
		}
		var ev []tensorboard.Event
		for _, x := range tv {
			ev = append(ev, tensorboard.Scalar(w, int64(k), x.tag, x.v))
		}
		return w, ev, nil
	}
	return w, nil, nil
}

// trajEvents reads traj/K (path), the snapshot its rollout used and
// metrics/grpo-K.
func trajEvents(dir string, k int, path string) (float64, []tensorboard.Event, error) {
	rows, metas, err := table.ReadFiles[table.Trajectory](path)
	if err != nil {
		return 0, nil, err
	}
	w := stampTime(metas...)
	var sc []tagValue
	if len(rows) > 0 {
		ok := 0
		for _, r := range rows {
			if r.Success {
				ok++
			}
		}
		groups, zeroVar, allFail := groupStats(rows)
		sc = append(sc, tagValue{"train/success", float64(ok) / float64(len(rows))},
			tagValue{"train/zero_variance_share", float64(zeroVar) / float64(groups)},
			tagValue{"train/all_failure_share", float64(allFail) / float64(groups)})
	}
	if snap, err := snapUsed(dir, metas); err != nil {
		return 0, nil, err
	} else if snap != "" {
		s, err := LoadSnap(snap)
		if err != nil {
			return 0, nil, err
		}
		sc = append(sc, tagValue{"scaffold/items", float64(s.Items)}, tagValue{"scaffold/tokens", float64(s.Tokens)})
	}
	mp := filepath.Join(dir, "metrics", fmt.Sprintf("grpo-%d.parquet", k))
	if _, err := os.Stat(mp); err == nil {
		m, mm, err := table.ReadFiles[table.TrainMetrics](mp)
		if err != nil {
			return 0, nil, err
		}
		w = max(w, stampTime(mm...))
		var loss, kl, clip float64
		var nkl, nclip int
		for _, r := range m {
			loss += r.Loss
			if r.KL != nil {
				kl += *r.KL
				nkl++
			}
			if r.ClipFrac != nil {
				clip += *r.ClipFrac
				nclip++
			}
		}
		if len(m) > 0 {
			sc = append(sc, tagValue{"grpo/loss", loss / float64(len(m))})
		}
		if nkl > 0 {
			sc = append(sc, tagValue{"grpo/kl", kl / float64(nkl)})
		}
		if nclip > 0 {
			sc = append(sc, tagValue{"grpo/clip_fraction", clip / float64(nclip)})
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, nil, err
	}
	var ev []tensorboard.Event
	for _, s := range sc {
		ev = append(ev, tensorboard.Scalar(w, int64(k), s.tag, s.v))
	}
	if len(rows) > 0 {
		var seed int64
		if len(metas) > 0 {
			seed = metas[0].Seed
		}
		i := SampledEpisode(seed, k, len(rows))
		ev = append(ev, tensorboard.Text(w, int64(k), "train/episode", EpisodeMarkdown(k, i, rows)))
	}
	return w, ev, nil
}

// snapUsed finds the snapshot a rollout was given: the input its
// provenance records whose content hash is that of a file of the run's
// snap/ folder (the same name first, so an archived or moved run finds
// it too). "" when it had none or the file is not there.
func snapUsed(dir string, metas []table.Meta) (string, error) {
	want := map[string]bool{}
	var named []string
	for _, m := range metas {
		for in, h := range m.Inputs {
			want[h] = true
			named = append(named, filepath.Join(dir, "snap", filepath.Base(in)))
		}
	}
	if len(want) == 0 {
		return "", nil
	}
	sort.Strings(named)
	all, _ := filepath.Glob(filepath.Join(dir, "snap", "*.parquet"))
	sort.Strings(all)
	for _, p := range append(named, all...) {
		h, err := table.HashFile(p)
		if err != nil {
			continue // not there
		}
		if want[h] {
			return p, nil
		}
	}
	return "", nil
}

// SampledEpisode is the index of the episode of iteration k's n episodes
// that the event files show: drawn with the trajectory file's seed and k,
// so a run's files show the same episodes every time.
func SampledEpisode(seed int64, k, n int) int {
	return rand.New(rand.NewPCG(uint64(seed), uint64(k))).IntN(n)
}

// maxEpisodeText bounds an episode's text (TensorBoard keeps texts as
// small tensors): turns past it are counted, not shown.
const maxEpisodeText = 16 << 10

// EpisodeMarkdown renders episode i of iteration k's rows for
// TensorBoard's text plugin: a line on the task and its outcome, then the
// goal, observations and actions as an indented (code) block, so that no
// text of the environment's is read as Markdown.
func EpisodeMarkdown(k, i int, rows []table.Trajectory) string {
	r := rows[i]
	out := "failure"
	if r.Success {
		out = "success"
	}
	if r.FailureMode != "" {
		out += " (" + r.FailureMode + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**iteration %d**, episode %d of %d: task `%s` (type `%s`, group `%s`, sample %d): %s, reward %.3f, %d steps",
		k, i+1, len(rows), strings.ReplaceAll(r.TaskID, "`", "'"), strings.ReplaceAll(r.TaskType, "`", "'"), strings.ReplaceAll(r.GroupID, "`", "'"), r.Sample, out, r.Reward, r.Steps)
	if r.NScaffoldTokens > 0 {
		fmt.Fprintf(&b, ", %d scaffold tokens", r.NScaffoldTokens)
	}
	if len(r.Reads) > 0 {
		fmt.Fprintf(&b, ", skills read: %s", strings.ReplaceAll(strings.Join(r.Reads, ", "), "`", "'"))
	}
	b.WriteString(".\n\n")
	block := func(label, text string) {
		for j, line := range strings.Split(text, "\n") {
			if j == 0 {
				line = label + line
			}
			b.WriteString("    " + line + "\n")
		}
	}
	block("goal: ", r.Goal)
	if len(r.Observations) > 0 {
		block("observation: ", r.Observations[0])
	}
	for t, a := range r.Actions {
		if b.Len() > maxEpisodeText {
			fmt.Fprintf(&b, "\n(%d more turns not shown)\n", len(r.Actions)-t)
			break
		}
		block("> ", a)
		if t+1 < len(r.Observations) {
			block("", r.Observations[t+1])
		}
	}
	return b.String()
}
