package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

func init() {
	table.RegisterKind[SweepRun]("sweep_run", 6)
	table.RegisterKind[SweepResult]("sweep_result", 6)
	table.RegisterKind[SweepCredit]("sweep_credit", 2)
}

// SweepRun is the final evaluation of one (variant, seed) run of a sweep.
// Success and score are shares in [0,1]; tokens are per episode. Skill
// reads are per episode, and the right and misleading reads are shares of
// all reads of that split in [0,1] (NULL where the split had no reads), as
// the evaluation's metrics rows hold them. Version 5 writes NULL where a
// value is absent; version 4 wrote 0 for a share without reads and NaN
// without a re-attached evaluation, which read as NULL. Version 6 writes
// NULL for the misleading exposure of an evaluation without it (an
// eval_metrics file older than its column); older versions wrote 0 there,
// which cannot be told from a measured 0 and reads as it is.
type SweepRun struct {
	Variant      string  `parquet:"variant"`         // pats, grpo, static, ...
	Seed         int64   `parquet:"seed"`            // the run's SEED
	Run          string  `parquet:"run"`             // run folder
	Iteration    int32   `parquet:"iteration"`       // checkpoint evaluated (the last one)
	Scaffold     bool    `parquet:"scaffold"`        // evaluated with the scaffold in the context (keep); else none
	SeenSuccess  float64 `parquet:"seen_success"`    // valid_seen success
	UnseenSucc   float64 `parquet:"unseen_success"`  // valid_unseen success
	Score        float64 `parquet:"score"`           // mean score over both splits
	Tokens       float64 `parquet:"tokens"`          // mean tokens per episode over both splits
	SeenEpisodes int32   `parquet:"seen_episodes"`   // episodes behind seen_success
	UnseenEps    int32   `parquet:"unseen_episodes"` // episodes behind unseen_success

	SeenReads        float64  `parquet:"seen_reads"`                       // valid_seen skill reads per episode
	SeenRightReads   *float64 `parquet:"seen_right_reads,optional"`        // share of the valid_seen reads that were right, [0,1]; NULL without reads (version 5; older files: 0)
	SeenMisleading   *float64 `parquet:"seen_misleading_reads,optional"`   // share of the valid_seen reads that were misleading, [0,1]; NULL without reads (version 5; older files: 0)
	UnseenReads      float64  `parquet:"unseen_reads"`                     // valid_unseen skill reads per episode
	UnseenRightReads *float64 `parquet:"unseen_right_reads,optional"`      // share of the valid_unseen reads that were right, [0,1]; NULL without reads (version 5; older files: 0)
	UnseenMisleading *float64 `parquet:"unseen_misleading_reads,optional"` // share of the valid_unseen reads that were misleading, [0,1]; NULL without reads (version 5; older files: 0)

	// Added in version 3: the same checkpoint evaluated with the run's
	// last scaffold re-attached (NULL for a run without a scaffold;
	// version 4 wrote NaN).
	ReattachSeen   *float64 `parquet:"reattach_seen_success,optional" since:"3"`   // version 3: valid_seen success with the scaffold
	ReattachUnseen *float64 `parquet:"reattach_unseen_success,optional" since:"3"` // version 3: valid_unseen success with the scaffold
	ReattachTokens *float64 `parquet:"reattach_tokens,optional" since:"3"`         // version 3: tokens per episode with the scaffold, both splits

	// Added in version 4: SkillGate's exposure, the share of episodes
	// that read at least one misleading skill, as the evaluation's metrics
	// row holds it: 0 where none did, reads or not; NULL where the
	// evaluation has none (an eval_metrics file older than the column).
	// Versions 4 and 5 wrote 0 there, read as it is; older files lack the
	// columns, read as NULL.
	SeenExposure   *float64 `parquet:"seen_misleading_exposure,optional" since:"4"`   // version 4: share of the valid_seen episodes that read a misleading skill, [0,1]; NULL when the evaluation has no exposure (version 6; versions 4 and 5 wrote 0)
	UnseenExposure *float64 `parquet:"unseen_misleading_exposure,optional" since:"4"` // version 4: share of the valid_unseen episodes that read a misleading skill, [0,1]; NULL when the evaluation has no exposure (version 6; versions 4 and 5 wrote 0)
}

// SweepResult aggregates the runs of one variant over seeds: the mean and
// the sample standard deviation (n-1; 0 for one seed). Paper is the PATS
// paper's ablation figure for its Qwen2.5-1.5B ALFWorld policy (success in
// percent), NULL where the paper has none: a published figure for
// comparison, not a figure of this toolkit.
//
// Reads per episode are averaged over all seeds. The right and misleading
// read shares are averaged over the seeds whose run read at least once in
// that split (SeenReadSeeds, UnseenReadSeeds; a run without reads has no
// share), NULL where none did. The misleading exposure is averaged over
// the seeds whose evaluations have it (SeenExposureSeeds,
// UnseenExposureSeeds), NULL where none does. Version 5 writes NULL where
// a value is absent; version 4 wrote NaN (and "" for the paper's name),
// which read as NULL. Version 6 makes the exposure nullable and adds its
// seed counts; in older files the exposure is the mean over every seed.
type SweepResult struct {
	Variant      string   `parquet:"variant"`                // pats, grpo, static, ...
	Seeds        int32    `parquet:"seeds"`                  // runs aggregated
	Scaffold     bool     `parquet:"scaffold"`               // evaluated with the scaffold (keep)
	SeenMean     float64  `parquet:"seen_mean"`              // valid_seen success, mean over seeds
	SeenStd      float64  `parquet:"seen_std"`               // its standard deviation
	UnseenMean   float64  `parquet:"unseen_mean"`            // valid_unseen success
	UnseenStd    float64  `parquet:"unseen_std"`             // its standard deviation over the same seeds
	ScoreMean    float64  `parquet:"score_mean"`             // score, both splits
	ScoreStd     float64  `parquet:"score_std"`              // its standard deviation over the same seeds
	TokensMean   float64  `parquet:"tokens_mean"`            // tokens per episode, both splits
	TokensStd    float64  `parquet:"tokens_std"`             // its standard deviation over the same seeds
	PaperSuccess *float64 `parquet:"paper_success,optional"` // the paper's figure (percent), NULL if none (version 5; older files: NaN)
	PaperVariant string   `parquet:"paper_variant,optional"` // the paper's name of the row, NULL if none (version 5; older files: "")

	SeenReadsMean        float64  `parquet:"seen_reads_mean"`                       // valid_seen skill reads per episode, mean over seeds
	SeenReadsStd         float64  `parquet:"seen_reads_std"`                        // its standard deviation over the same seeds
	SeenReadSeeds        int32    `parquet:"seen_read_seeds"`                       // seeds whose run read in valid_seen: the shares below are over these
	SeenRightReadsMean   *float64 `parquet:"seen_right_reads_mean,optional"`        // share of the valid_seen reads that were right, [0,1], NULL without reads
	SeenRightReadsStd    *float64 `parquet:"seen_right_reads_std,optional"`         // its standard deviation over the same seeds
	SeenMisleadingMean   *float64 `parquet:"seen_misleading_reads_mean,optional"`   // share of the valid_seen reads that were misleading, [0,1], NULL without reads
	SeenMisleadingStd    *float64 `parquet:"seen_misleading_reads_std,optional"`    // its standard deviation over the same seeds
	UnseenReadsMean      float64  `parquet:"unseen_reads_mean"`                     // valid_unseen skill reads per episode, mean over seeds
	UnseenReadsStd       float64  `parquet:"unseen_reads_std"`                      // its standard deviation over the same seeds
	UnseenReadSeeds      int32    `parquet:"unseen_read_seeds"`                     // seeds whose run read in valid_unseen
	UnseenRightReadsMean *float64 `parquet:"unseen_right_reads_mean,optional"`      // share of the valid_unseen reads that were right, [0,1], NULL without reads
	UnseenRightReadsStd  *float64 `parquet:"unseen_right_reads_std,optional"`       // its standard deviation over the same seeds
	UnseenMisleadingMean *float64 `parquet:"unseen_misleading_reads_mean,optional"` // share of the valid_unseen reads that were misleading, [0,1], NULL without reads
	UnseenMisleadingStd  *float64 `parquet:"unseen_misleading_reads_std,optional"`  // its standard deviation over the same seeds

	// Added in version 3: the runs' last scaffold re-attached at
	// evaluation, over the seeds that have it (ReattachSeeds; NULL where
	// none).
	ReattachSeeds      int32    `parquet:"reattach_seeds" since:"3"`                // version 3
	ReattachSeenMean   *float64 `parquet:"reattach_seen_mean,optional" since:"3"`   // version 3
	ReattachSeenStd    *float64 `parquet:"reattach_seen_std,optional" since:"3"`    // version 3
	ReattachUnseenMean *float64 `parquet:"reattach_unseen_mean,optional" since:"3"` // version 3
	ReattachUnseenStd  *float64 `parquet:"reattach_unseen_std,optional" since:"3"`  // version 3
	ReattachTokensMean *float64 `parquet:"reattach_tokens_mean,optional" since:"3"` // version 3
	ReattachTokensStd  *float64 `parquet:"reattach_tokens_std,optional" since:"3"`  // version 3

	// Added in version 4: misleading exposure per episode, mean over the
	// seeds whose evaluations have it (version 6; versions 4 and 5: over
	// every seed, an evaluation without it counted as 0), NULL where none
	// does (version 6; older files lack the columns, read as NULL).
	SeenExposureMean   *float64 `parquet:"seen_misleading_exposure_mean,optional" since:"4"`   // version 4: share of the valid_seen episodes that read a misleading skill, [0,1]; NULL when no seed has it (version 6)
	SeenExposureStd    *float64 `parquet:"seen_misleading_exposure_std,optional" since:"4"`    // version 4
	UnseenExposureMean *float64 `parquet:"unseen_misleading_exposure_mean,optional" since:"4"` // version 4: share of the valid_unseen episodes that read a misleading skill, [0,1]; NULL when no seed has it (version 6)
	UnseenExposureStd  *float64 `parquet:"unseen_misleading_exposure_std,optional" since:"4"`  // version 4

	// Added in version 6: the seeds the exposure is over (read as seeds
	// from versions 4 and 5, whose means are over every seed; 0 from
	// older files, which have no exposure).
	SeenExposureSeeds   int32 `parquet:"seen_misleading_exposure_seeds" since:"6"`   // version 6: seeds whose valid_seen evaluation has a misleading exposure
	UnseenExposureSeeds int32 `parquet:"unseen_misleading_exposure_seeds" since:"6"` // version 6: seeds whose valid_unseen evaluation has one
}

// Paper maps a variant to the PATS paper's ablation figure on ALFWorld with
// its 1.5B policy (success, percent) and the paper's name of that row.
var Paper = map[string]struct {
	Success float64
	Name    string
}{
	"pats":        {80.71, "full PATS"},
	"static":      {73.57, "no online scaffold"},
	"traj-cards":  {77.14, "trajectory-wise cards"},
	"expand-only": {74.05, "EXPAND-only"},
	"frozen":      {72.86, "frozen"},
	"no-revise":   {68.10, "without REVISE"},
	"warm-start":  {70.24, "static expert warm start"},
	"grpo":        {67.86, "GRPO"},
}

// RunDir is the run folder of a variant and seed under root. The keep
// variant trains exactly like pats and differs only in being evaluated
// with the scaffold, so it reads the pats run.
func RunDir(root, variant string, seed int64) string {
	v := variant
	if v == "keep" {
		v = "pats"
	}
	return filepath.Join(root, fmt.Sprintf("%s-s%d", v, seed))
}

// SummaryFile is the file pats.mk writes last in a run folder: a run
// without it is not finished, whatever evaluations it already holds (its
// ckpt/0 is evaluated first).
const SummaryFile = "summary.md"

// LoadSweepRun reads the final evaluation of one finished run folder.
func LoadSweepRun(dir, variant string, seed int64) (SweepRun, error) {
	r, err := Load(dir)
	if err != nil {
		return SweepRun{}, err
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		return SweepRun{}, &table.InputError{Path: dir, Problem: "no " + SummaryFile + ": the run is not finished"}
	}
	sc := variant == "keep"
	k := r.LastEval()
	seen, ok1 := r.Find(k, sc, "valid_seen")
	unseen, ok2 := r.Find(k, sc, "valid_unseen")
	if !ok1 || !ok2 {
		return SweepRun{}, &table.InputError{Path: dir, Problem: fmt.Sprintf("no final evaluation on valid_seen and valid_unseen (scaffold %v): is the run finished?", sc)}
	}
	s, u := seen.Metrics, unseen.Metrics
	n := float64(s.Episodes + u.Episodes)
	var ra [3]*float64
	if rs, ok := r.Find(k, true, "valid_seen"); ok && !sc {
		if ru, ok := r.Find(k, true, "valid_unseen"); ok {
			m := float64(rs.Metrics.Episodes + ru.Metrics.Episodes)
			tok := (rs.Metrics.Tokens*float64(rs.Metrics.Episodes) + ru.Metrics.Tokens*float64(ru.Metrics.Episodes)) / m
			ra = [3]*float64{&rs.Metrics.Success, &ru.Metrics.Success, &tok}
		}
	}
	return SweepRun{
		ReattachSeen: ra[0], ReattachUnseen: ra[1], ReattachTokens: ra[2],
		Variant: variant, Seed: seed, Run: dir, Iteration: int32(k), Scaffold: sc,
		SeenSuccess: s.Success, UnseenSucc: u.Success,
		Score:        (s.Score*float64(s.Episodes) + u.Score*float64(u.Episodes)) / n,
		Tokens:       (s.Tokens*float64(s.Episodes) + u.Tokens*float64(u.Episodes)) / n,
		SeenEpisodes: s.Episodes, UnseenEps: u.Episodes,
		SeenReads: s.ReadsPerEp, SeenRightReads: readShare(s.ReadsPerEp, s.RightReadRate), SeenMisleading: readShare(s.ReadsPerEp, s.MisleadingRate),
		UnseenReads: u.ReadsPerEp, UnseenRightReads: readShare(u.ReadsPerEp, u.RightReadRate), UnseenMisleading: readShare(u.ReadsPerEp, u.MisleadingRate),
		SeenExposure: s.MisleadingExposure, UnseenExposure: u.MisleadingExposure,
	}, nil
}

// readShare is a split's read share: NULL without reads, whatever the
// evaluation row holds.
func readShare(reads float64, share *float64) *float64 {
	if reads == 0 {
		return nil
	}
	return share
}

// UpgradeFrom reads a row of version 4 or older: a read share of a split
// without reads (written as 0) and the re-attached figures of a run
// without them (NaN) become NULL. The misleading exposure of versions 4
// and 5 reads as it is: their 0 for an evaluation without one cannot be
// told from a measured 0.
func (r *SweepRun) UpgradeFrom(version int) {
	if version >= 5 {
		return
	}
	if r.SeenReads == 0 {
		r.SeenRightReads, r.SeenMisleading = nil, nil
	}
	if r.UnseenReads == 0 {
		r.UnseenRightReads, r.UnseenMisleading = nil, nil
	}
	nanToNull(&r.ReattachSeen, &r.ReattachUnseen, &r.ReattachTokens)
}

// UpgradeFrom reads a row of version 5 or older: in versions 4 and 5 the
// misleading exposure is over every seed, so its seed counts are the
// row's seeds. In version 4 or older, NaN (no paper figure, no seed with
// reads or with a re-attached evaluation) becomes NULL, and so does the
// paper's name "" .
func (r *SweepResult) UpgradeFrom(version int) {
	if version >= 4 && version < 6 {
		r.SeenExposureSeeds, r.UnseenExposureSeeds = r.Seeds, r.Seeds
	}
	if version >= 5 {
		return
	}
	nanToNull(&r.PaperSuccess, &r.SeenRightReadsMean, &r.SeenRightReadsStd, &r.SeenMisleadingMean, &r.SeenMisleadingStd,
		&r.UnseenRightReadsMean, &r.UnseenRightReadsStd, &r.UnseenMisleadingMean, &r.UnseenMisleadingStd,
		&r.ReattachSeenMean, &r.ReattachSeenStd, &r.ReattachUnseenMean, &r.ReattachUnseenStd, &r.ReattachTokensMean, &r.ReattachTokensStd)
}

// nanToNull sets each *p that holds NaN to nil: how an upgrade reads the
// NaN an older version wrote for an absent value.
func nanToNull(ps ...**float64) {
	for _, p := range ps {
		if *p != nil && math.IsNaN(**p) {
			*p = nil
		}
	}
}

// meanStdOrNull is MeanStd of xs, both NULL for none.
func meanStdOrNull(xs []float64) (mean, std *float64) {
	if len(xs) == 0 {
		return nil, nil
	}
	m, s := MeanStd(xs)
	return &m, &s
}

// MeanStd returns the mean and the sample standard deviation (n-1) of xs;
// the deviation is 0 for fewer than two values, both are NaN for none.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)-1))
}

// Aggregate groups runs by variant (in the order of variants) into results.
func Aggregate(runs []SweepRun, variants []string) []SweepResult {
	var out []SweepResult
	for _, v := range variants {
		var seen, unseen, score, tok []float64
		var reads [2]splitReads
		var ra [3][]float64   // over the runs with a re-attached evaluation
		var expo [2][]float64 // over the runs whose evaluation has the exposure
		sc := false
		for _, r := range runs {
			if r.Variant != v {
				continue
			}
			seen, unseen = append(seen, r.SeenSuccess), append(unseen, r.UnseenSucc)
			score, tok = append(score, r.Score), append(tok, r.Tokens)
			reads[0].add(r.SeenReads, r.SeenRightReads, r.SeenMisleading)
			reads[1].add(r.UnseenReads, r.UnseenRightReads, r.UnseenMisleading)
			if r.SeenExposure != nil {
				expo[0] = append(expo[0], *r.SeenExposure)
			}
			if r.UnseenExposure != nil {
				expo[1] = append(expo[1], *r.UnseenExposure)
			}
			sc = r.Scaffold
			if r.ReattachSeen != nil && r.ReattachUnseen != nil && r.ReattachTokens != nil {
				ra[0], ra[1], ra[2] = append(ra[0], *r.ReattachSeen), append(ra[1], *r.ReattachUnseen), append(ra[2], *r.ReattachTokens)
			}
		}
		if len(seen) == 0 {
			continue
		}
		res := SweepResult{Variant: v, Seeds: int32(len(seen)), Scaffold: sc}
		res.SeenMean, res.SeenStd = MeanStd(seen)
		res.UnseenMean, res.UnseenStd = MeanStd(unseen)
		res.ScoreMean, res.ScoreStd = MeanStd(score)
		res.TokensMean, res.TokensStd = MeanStd(tok)
		res.SeenReadsMean, res.SeenReadsStd = MeanStd(reads[0].reads)
		res.SeenReadSeeds = int32(len(reads[0].right))
		res.SeenRightReadsMean, res.SeenRightReadsStd = meanStdOrNull(reads[0].right)
		res.SeenMisleadingMean, res.SeenMisleadingStd = meanStdOrNull(reads[0].misleading)
		res.UnseenReadsMean, res.UnseenReadsStd = MeanStd(reads[1].reads)
		res.UnseenReadSeeds = int32(len(reads[1].right))
		res.UnseenRightReadsMean, res.UnseenRightReadsStd = meanStdOrNull(reads[1].right)
		res.UnseenMisleadingMean, res.UnseenMisleadingStd = meanStdOrNull(reads[1].misleading)
		res.SeenExposureSeeds, res.UnseenExposureSeeds = int32(len(expo[0])), int32(len(expo[1]))
		res.SeenExposureMean, res.SeenExposureStd = meanStdOrNull(expo[0])
		res.UnseenExposureMean, res.UnseenExposureStd = meanStdOrNull(expo[1])
		res.ReattachSeeds = int32(len(ra[0]))
		res.ReattachSeenMean, res.ReattachSeenStd = meanStdOrNull(ra[0])
		res.ReattachUnseenMean, res.ReattachUnseenStd = meanStdOrNull(ra[1])
		res.ReattachTokensMean, res.ReattachTokensStd = meanStdOrNull(ra[2])
		if p, ok := Paper[v]; ok {
			res.PaperSuccess, res.PaperVariant = &p.Success, p.Name
		}
		out = append(out, res)
	}
	return out
}

// splitReads collects one split's skill reads over the seeds of a variant:
// reads per episode of every seed, and the read shares of the seeds that
// read at all (whose shares are not NULL).
type splitReads struct{ reads, right, misleading []float64 }

func (s *splitReads) add(reads float64, right, misleading *float64) {
	s.reads = append(s.reads, reads)
	if reads > 0 && right != nil && misleading != nil {
		s.right, s.misleading = append(s.right, *right), append(s.misleading, *misleading)
	}
}

// WriteSweepMarkdown writes the results table: success in percent, mean ±
// standard deviation over seeds, and the paper's figure in its own,
// labelled column. When any variant read skills, a second table follows:
// per variant that read and split, success, skill reads per episode, the
// right and misleading reads in percent of all reads (over the seeds that
// read, counted where fewer than all seeds did; — where none did) and the
// misleading exposure in percent of episodes (over the seeds whose
// evaluations have it, counted where fewer than all do; — where none
// does). The unfinished runs are listed last.
func WriteSweepMarkdown(w io.Writer, res []SweepResult, missing []string) {
	fmt.Fprintln(w, "| variant | seeds | eval context | valid_seen success % | valid_unseen success % | score | tokens/episode | PATS paper, 1.5B ALFWorld success % (their figure, not ours) |")
	fmt.Fprintln(w, "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range res {
		ctx := "none"
		if r.Scaffold {
			ctx = "scaffold"
		}
		paper := "—"
		if r.PaperSuccess != nil {
			paper = fmt.Sprintf("%.2f (%s)", *r.PaperSuccess, r.PaperVariant)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", table.MarkdownCell(r.Variant), r.Seeds, ctx,
			pm(100*r.SeenMean, 100*r.SeenStd, 1), pm(100*r.UnseenMean, 100*r.UnseenStd, 1),
			pm(r.ScoreMean, r.ScoreStd, 3), pm(r.TokensMean, r.TokensStd, 0), paper)
	}
	if anyReads(res) {
		writeReadsMarkdown(w, res)
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "\nNot finished (left out): %s\n", table.Printable(strings.Join(missing, ", ")))
	}
}

func pm(m, s float64, prec int) string {
	return fmt.Sprintf("%.*f ± %.*f", prec, m, prec, s)
}

// readsSkills reports whether some seed of the variant read skills in
// some split.
func readsSkills(r SweepResult) bool { return r.SeenReadSeeds > 0 || r.UnseenReadSeeds > 0 }

// anyReads reports whether some variant read skills in some split.
func anyReads(res []SweepResult) bool {
	for _, r := range res {
		if readsSkills(r) {
			return true
		}
	}
	return false
}

// writeReadsMarkdown writes the skill-read table of WriteSweepMarkdown:
// one row per variant that read and split, success beside SkillGate's
// measures (reads per episode, the right reads' share of all reads,
// misleading exposure per episode and the misleading reads' share of all
// reads), mean ± standard deviation over seeds.
func writeReadsMarkdown(w io.Writer, res []SweepResult) {
	fmt.Fprintln(w, "\nSkill reads of the same evaluations (variants that read), beside success: reads per episode, right reads in percent of all reads, misleading exposure in percent of episodes (episodes that read at least one misleading skill, SkillGate's exposure) and misleading reads in percent of all reads.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| variant | split | seeds | success % | reads/episode | right reads % of reads | misleading exposure % of episodes | misleading reads % of reads |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range res {
		if !readsSkills(r) {
			continue // no skill slate: nothing to show
		}
		fmt.Fprintf(w, "| %s | valid_seen | %d | %s | %s | %s | %s | %s |\n", table.MarkdownCell(r.Variant), r.Seeds,
			pm(100*r.SeenMean, 100*r.SeenStd, 1), pm(r.SeenReadsMean, r.SeenReadsStd, 2),
			share(r.SeenRightReadsMean, r.SeenRightReadsStd, r.SeenReadSeeds, r.Seeds),
			share(r.SeenExposureMean, r.SeenExposureStd, r.SeenExposureSeeds, r.Seeds),
			share(r.SeenMisleadingMean, r.SeenMisleadingStd, r.SeenReadSeeds, r.Seeds))
		fmt.Fprintf(w, "| %s | valid_unseen | %d | %s | %s | %s | %s | %s |\n", table.MarkdownCell(r.Variant), r.Seeds,
			pm(100*r.UnseenMean, 100*r.UnseenStd, 1), pm(r.UnseenReadsMean, r.UnseenReadsStd, 2),
			share(r.UnseenRightReadsMean, r.UnseenRightReadsStd, r.UnseenReadSeeds, r.Seeds),
			share(r.UnseenExposureMean, r.UnseenExposureStd, r.UnseenExposureSeeds, r.Seeds),
			share(r.UnseenMisleadingMean, r.UnseenMisleadingStd, r.UnseenReadSeeds, r.Seeds))
	}
}

// share formats a share in percent, mean ± std over the n of seeds seeds
// that have it (a read share: the seeds that read; the misleading
// exposure: the seeds whose evaluations have it): — for none (NULL), the
// count where fewer than all have it.
func share(m, s *float64, n, seeds int32) string {
	if n == 0 || m == nil || s == nil {
		return "—"
	}
	out := pm(100**m, 100**s, 1)
	if n < seeds {
		out += fmt.Sprintf(" (%d of %d seeds)", n, seeds)
	}
	return out
}
