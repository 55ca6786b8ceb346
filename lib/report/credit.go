package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/pats-rl/pats/lib/table"
)

// CreditFile is where scripts/sweep-audits.sh writes a run's credit audit
// (audit credit over all its iterations), relative to the run folder.
var CreditFile = filepath.Join("audit", "credit.parquet")

// SweepCredit aggregates the credit audits of one variant's runs over
// seeds, per horizon measure and bin (bin b of each run: its b-th shortest
// horizons; the bins of different runs cover somewhat different ranges,
// Lo and Hi span them all). Means and sample standard deviations (n-1; 0
// for one seed) over the seeds whose bin has the measure; NULL where none
// (version 2; version 1 wrote NaN, read as NULL).
type SweepCredit struct {
	Variant       string   `parquet:"variant"`                        // the sweep variant (skillgate, broadcast, gigpo, ...)
	Horizon       string   `parquet:"horizon"`                        // steps or tokens
	Bin           int32    `parquet:"bin"`                            // bin index, shortest horizons first
	Seeds         int32    `parquet:"seeds"`                          // runs with this bin
	Lo            float64  `parquet:"lo"`                             // smallest horizon of the bin over those runs
	Hi            float64  `parquet:"hi"`                             // largest horizon
	EpisodesMean  float64  `parquet:"episodes_mean"`                  // episodes in the bin, mean over seeds
	ShareMean     *float64 `parquet:"skill_name_share_mean,optional"` // |credit| share of skill-name tokens
	ShareStd      *float64 `parquet:"skill_name_share_std,optional"`  // its standard deviation over the same seeds
	RightNegMean  *float64 `parquet:"right_neg_frac_mean,optional"`   // share of right reads credited < 0
	RightNegStd   *float64 `parquet:"right_neg_frac_std,optional"`    // its standard deviation over the same seeds
	CoverageMean  *float64 `parquet:"anchor_coverage_mean,optional"`  // GiGPO's anchor coverage of the bin's turns
	CoverageStd   *float64 `parquet:"anchor_coverage_std,optional"`   // its standard deviation over the same seeds
	GroupSizeMean *float64 `parquet:"step_group_size_mean,optional"`  // mean size of the turns' GiGPO step groups
	GroupSizeStd  *float64 `parquet:"step_group_size_std,optional"`   // its standard deviation over the same seeds
}

// UpgradeFrom reads a row of version 1: NaN (no seed with the measure)
// becomes NULL.
func (c *SweepCredit) UpgradeFrom(version int) {
	if version < 2 {
		nanToNull(&c.ShareMean, &c.ShareStd, &c.RightNegMean, &c.RightNegStd, &c.CoverageMean, &c.CoverageStd, &c.GroupSizeMean, &c.GroupSizeStd)
	}
}

// LoadCreditAudit reads a run folder's credit audit (CreditFile); a run
// without one gives no rows and no error.
func LoadCreditAudit(dir string) ([]table.CreditAudit, error) {
	p := filepath.Join(dir, CreditFile)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	rows, _, err := table.ReadFiles[table.CreditAudit](p)
	return rows, err
}

// AggregateCredit groups the credit audits of runs (by variant, in the
// order of variants; audits[i] belongs to runs[i]) per horizon and bin.
// A step-group size of 0 (a file older than the column) counts as missing.
func AggregateCredit(runs []SweepRun, audits [][]table.CreditAudit, variants []string) []SweepCredit {
	type key struct {
		horizon string
		bin     int32
	}
	var out []SweepCredit
	for _, v := range variants {
		type acc struct {
			lo, hi                         float64
			eps, share, neg, cover, groups []float64
		}
		by := map[key]*acc{}
		for i, r := range runs {
			if r.Variant != v {
				continue
			}
			for _, a := range audits[i] {
				k := key{a.Horizon, a.Bin}
				c := by[k]
				if c == nil {
					c = &acc{lo: math.Inf(1), hi: math.Inf(-1)}
					by[k] = c
				}
				c.lo, c.hi = math.Min(c.lo, a.Lo), math.Max(c.hi, a.Hi)
				c.eps = append(c.eps, float64(a.Episodes))
				c.share = appendNum(c.share, table.OrNaN(a.SkillNameShare))
				if a.RightReads > 0 {
					c.neg = appendNum(c.neg, table.OrNaN(a.RightNegFrac))
				}
				if a.Turns > 0 {
					c.cover = appendNum(c.cover, table.OrNaN(a.AnchorCoverage))
					if table.OrNaN(a.StepGroupSize) > 0 {
						c.groups = appendNum(c.groups, table.OrNaN(a.StepGroupSize))
					}
				}
			}
		}
		keys := make([]key, 0, len(by))
		for k := range by {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].horizon != keys[j].horizon {
				return horizonOrder(keys[i].horizon) < horizonOrder(keys[j].horizon)
			}
			return keys[i].bin < keys[j].bin
		})
		for _, k := range keys {
			c := by[k]
			row := SweepCredit{Variant: v, Horizon: k.horizon, Bin: k.bin, Seeds: int32(len(c.eps)), Lo: c.lo, Hi: c.hi}
			row.EpisodesMean, _ = MeanStd(c.eps)
			row.ShareMean, row.ShareStd = meanStdOrNull(c.share)
			row.RightNegMean, row.RightNegStd = meanStdOrNull(c.neg)
			row.CoverageMean, row.CoverageStd = meanStdOrNull(c.cover)
			row.GroupSizeMean, row.GroupSizeStd = meanStdOrNull(c.groups)
			out = append(out, row)
		}
	}
	return out
}

// horizonOrder puts steps before tokens, then anything else by name.
func horizonOrder(h string) string {
	switch h {
	case "steps":
		return "0"
	case "tokens":
		return "1"
	}
	return "2" + h
}

func appendNum(xs []float64, x float64) []float64 {
	if math.IsNaN(x) {
		return xs
	}
	return append(xs, x)
}

// WriteCreditMarkdown writes the credit table of the runs that have a
// credit audit (nothing when none has): per variant, horizon and bin, the
// skill-name tokens' share of the credit and the share of right reads
// credited negatively (SkillGate's selector credit starvation), GiGPO's
// anchor coverage and the mean step-group size, mean ± standard deviation
// over seeds; — where the bin has no such measure.
func WriteCreditMarkdown(w io.Writer, rows []SweepCredit) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nCredit audits of the training rollouts (`audit credit` over all iterations of each run, RUN/audit/credit.parquet), by horizon bin: the skill-name tokens' share of the absolute credit, right reads credited < 0 (of right single reads), GiGPO's anchor coverage (turns whose state another turn of the group shares) and the mean step-group size of the turns.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| variant | horizon | bin | range | seeds | episodes/seed | skill-name share | right reads credited < 0 | anchor coverage | mean step-group size |")
	fmt.Fprintln(w, "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %.0f-%.0f | %d | %.1f | %s | %s | %s | %s |\n", table.MarkdownCell(r.Variant), r.Horizon, r.Bin, r.Lo, r.Hi, r.Seeds, r.EpisodesMean,
			pmOrDash(r.ShareMean, r.ShareStd, 1, 4), pmOrDash(r.RightNegMean, r.RightNegStd, 1, 3),
			pmOrDash(r.CoverageMean, r.CoverageStd, 1, 3), pmOrDash(r.GroupSizeMean, r.GroupSizeStd, 1, 2))
	}
}

// pmOrDash is pm of the mean and sd times scale, or — for NULL.
func pmOrDash(m, s *float64, scale float64, prec int) string {
	if m == nil || s == nil {
		return "—"
	}
	return pm(scale**m, scale**s, prec)
}
