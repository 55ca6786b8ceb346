package audit

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/env"
	"github.com/pats-rl/pats/lib/rollout"
	"github.com/pats-rl/pats/lib/skill"
	"github.com/pats-rl/pats/lib/table"
)

// The reading test's conditions, in table order.
const (
	CondNone           = "none"
	CondRightHint      = "right-hint"
	CondMisleadingHint = "misleading-hint"
	CondRightSkill     = "right-skill"
	CondWrongSkill     = "wrong-skill"
)

// ReadingConditions lists the conditions in the order Reading plays them.
var ReadingConditions = []string{CondNone, CondRightHint, CondMisleadingHint, CondRightSkill, CondWrongSkill}

// readingContext says in words what a condition adds to the context.
var readingContext = map[string]string{
	CondNone:           "no extra text",
	CondRightHint:      "the task's right rules in the scaffold's place",
	CondMisleadingHint: "misleading rules of the same form",
	CondRightSkill:     "the right skill's body",
	CondWrongSkill:     "a misleading skill's body",
}

// Reading runs the reading test: the same tasks and episode seeds (base:
// environment, split, tasks, group, seed, policy; its Hint, Preread and
// Scaffold are replaced) played once per condition:
//
//   - none: the context has no extra text;
//   - right-hint: the environment's right rules about the task
//     (env.Hinter), rendered like the scaffold's Task layer
//     (rollout.HintText);
//   - misleading-hint: its misleading rules, same form;
//   - right-skill: the body of the task type's right skill (the first in
//     name order) placed in the context before the first action, as if the
//     episode had read it (the body the environment states for the task
//     when it is an env.BodyStater, as a read shows it);
//   - wrong-skill: the body of a skill misleading for the type (the first in
//     name order; an unrelated skill when there is none).
//
// The hint conditions need an environment that states rules, the skill
// conditions a library (lib nil skips them). Each row carries the success
// rate, its 95% Wilson score interval, its difference from none, and the
// mean steps and tokens per episode, and the skill reads per episode with
// the share of them that were right (a policy trained with a slate may read
// in any condition: then "none" is not a context without text).
//
// With a slate (base.Skills set, the policy's training had skills on) every
// condition shows the episode's slate, text policies make no read of their
// own, and the skill conditions instead make the first action read the
// right skill, or the first misleading skill of the slate (the first
// unrelated one when it has none), so the body follows a read as in
// training (rollout.Options.FirstRead); lib is then not used.
func Reading(ctx context.Context, base rollout.Options, lib *skill.Library) ([]table.ReadingAudit, error) {
	hinter, _ := base.Env.(env.Hinter)
	slate := base.Skills
	var rows []table.ReadingAudit
	noneRate := math.NaN()
	for _, cond := range ReadingConditions {
		o := base
		o.Scaffold, o.ScaffoldVersion, o.Hint, o.Preread, o.HintBody, o.FirstRead = nil, -1, nil, nil, nil, nil
		if slate != nil {
			o.TextRead = "none"
		}
		switch cond {
		case CondRightHint, CondMisleadingHint:
			if hinter == nil {
				continue
			}
			o.Hint = hintOf(hinter, cond == CondRightHint)
		case CondRightSkill, CondWrongSkill:
			right := cond == CondRightSkill
			if slate != nil {
				o.FirstRead = func(taskType string, names []string) string { return slateRead(slate, taskType, names, right) }
				break
			}
			if lib == nil {
				continue
			}
			bodies, err := skillBodies(lib, base.Env.TaskTypes(), right)
			if err != nil {
				return nil, err
			}
			if right {
				// the body --preread right shows: the one the
				// environment states for the task (env.BodyStater)
				if o.Preread, err = rollout.PrereadFunc(base.Env, lib, rollout.PrereadRight, base.Seed); err != nil {
					return nil, err
				}
				break
			}
			o.Preread = func(_, taskType string) string { return bodies[taskType] }
		}
		trajs, err := rollout.Run(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("reading test, condition %s: %w", cond, err)
		}
		r := readingRow(cond, o, trajs)
		if cond == CondNone {
			noneRate = r.Success
		}
		r.Delta = r.Success - noneRate
		rows = append(rows, r)
	}
	return rows, nil
}

// hintOf renders a task's right (or misleading) rules.
func hintOf(h env.Hinter, right bool) func(string) string {
	return func(taskID string) string {
		hs, err := h.Hints(taskID)
		if err != nil {
			return ""
		}
		if right {
			return rollout.HintText(hs.Right)
		}
		return rollout.HintText(hs.Misleading)
	}
}

// slateRead picks the skill a skill condition reads from a slate: the
// right one, or the first misleading one (the first unrelated one when
// the slate has none).
func slateRead(lib *skill.Library, taskType string, names []string, right bool) string {
	var other string
	for _, n := range names {
		switch {
		case lib.IsRight(n, taskType):
			if right {
				return n
			}
		case lib.IsMisleading(n, taskType):
			if !right {
				return n
			}
		default:
			if other == "" {
				other = n
			}
		}
	}
	if right {
		return ""
	}
	return other
}

// skillBodies picks per task type the body a skill condition shows.
func skillBodies(lib *skill.Library, types []string, right bool) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range types {
		var names []string
		if right {
			names = lib.Right(t)
		} else if names = lib.Misleading(t); len(names) == 0 {
			for _, s := range lib.Skills() {
				if !s.Related() {
					names = append(names, s.Name)
				}
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("reading test: the skill library has no %s skill for task type %s", map[bool]string{true: "right", false: "misleading or unrelated"}[right], t)
		}
		s, _ := lib.Get(names[0])
		out[t] = s.Body
	}
	return out, nil
}

func readingRow(cond string, o rollout.Options, trajs []table.Trajectory) table.ReadingAudit {
	r := table.ReadingAudit{Condition: cond, Context: readingContext[cond], Env: o.Env.Name(), Split: o.Split,
		Policy: o.Policy.Name(), Episodes: int32(len(trajs))}
	tasks := map[string]bool{}
	var steps, tokens float64
	reads, right := 0, 0
	for _, t := range trajs {
		tasks[t.TaskID] = true
		if t.Success {
			r.Successes++
		}
		steps += float64(t.Steps)
		tokens += float64(t.NTokens)
		reads += len(t.Reads)
		for _, ok := range t.ReadsRight {
			if ok {
				right++
			}
		}
	}
	r.Tasks = int32(len(tasks))
	if n := float64(len(trajs)); n > 0 {
		r.Success = float64(r.Successes) / n
		r.Steps, r.Tokens = steps/n, tokens/n
		r.Reads = float64(reads) / n
	}
	if reads > 0 { // else NULL: a share of no reads
		x := float64(right) / float64(reads)
		r.RightReads = &x
	}
	r.Lo, r.Hi = Wilson(int(r.Successes), len(trajs), 1.959963984540054)
	return r
}

// Wilson is the Wilson score interval of a binomial proportion k/n at
// normal quantile z (1.96 for 95%): (p + z²/2n ± z·sqrt(p(1-p)/n +
// z²/4n²)) / (1 + z²/n). With n = 0 it is (0, 1).
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	nn := float64(n)
	p := float64(k) / nn
	z2 := z * z
	den := 1 + z2/nn
	mid := (p + z2/(2*nn)) / den
	half := z * math.Sqrt(p*(1-p)/nn+z2/(4*nn*nn)) / den
	lo, hi = math.Max(0, mid-half), math.Min(1, mid+half)
	if k == 0 {
		lo = 0 // exact: mid = half
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// ReadingMarkdown renders the reading test as a Markdown table.
func ReadingMarkdown(w io.Writer, rows []table.ReadingAudit) error {
	var b strings.Builder
	if len(rows) > 0 {
		fmt.Fprintf(&b, "reading test: %s on %s %s, %d tasks\n\n", rows[0].Policy, rows[0].Env, rows[0].Split, rows[0].Tasks)
	}
	b.WriteString("| condition | context | episodes | success | 95% interval | vs none | steps | tokens/episode | reads/episode | right reads |\n")
	b.WriteString("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		right := "-"
		if r.RightReads != nil {
			right = fmt.Sprintf("%.3f", *r.RightReads)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f-%.3f | %+.3f | %.1f | %.0f | %.2f | %s |\n", r.Condition, r.Context,
			r.Episodes, r.Success, r.Lo, r.Hi, r.Delta, r.Steps, r.Tokens, r.Reads, right)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
