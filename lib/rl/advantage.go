package rl

import (
	"math"
)

// AdvNorm says how group-relative advantages are normalised.
type AdvNorm int

const (
	// NormStd is (r - mean) / (std + Eps), std the sample standard
	// deviation (n-1) of the group's rewards.
	NormStd AdvNorm = iota
	// NormMean is r - mean.
	NormMean
)

// ParseAdvNorm reads "std" or "mean".
func ParseAdvNorm(s string) (AdvNorm, error) {
	switch s {
	case "std", "":
		return NormStd, nil
	case "mean":
		return NormMean, nil
	}
	return 0, badSetting("adv-norm", "%q: want std or mean", s)
}

func (n AdvNorm) String() string {
	if n == NormMean {
		return "mean"
	}
	return "std"
}

// Eps keeps the std normalisation finite for nearly equal rewards.
const Eps = 1e-6

// GroupAdvantages returns the group-relative advantage of every reward:
// episodes i and j belong to one group when groups[i] == groups[j]. A group
// whose rewards are all equal gets advantage exactly 0 for every episode
// and is reported in zeroVar (in order of first appearance). Rewards must
// be finite; a group whose spread overflows gets NaN advantages
// (CheckCredit refuses such rewards before an update).
func GroupAdvantages(rewards []float64, groups []string, norm AdvNorm) (adv []float64, zeroVar []string) {
	members := map[string][]int{}
	var order []string
	for i, g := range groups {
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	adv = make([]float64, len(rewards))
	for _, g := range order {
		idx := members[g]
		equal := true
		for _, i := range idx {
			equal = equal && rewards[i] == rewards[idx[0]]
		}
		if equal {
			zeroVar = append(zeroVar, g)
			continue // advantages stay 0
		}
		var mean float64
		for _, i := range idx {
			mean += rewards[i]
		}
		mean /= float64(len(idx))
		var ss float64
		for _, i := range idx {
			d := rewards[i] - mean
			ss += d * d
		}
		std := 0.0
		if len(idx) > 1 {
			std = math.Sqrt(ss / float64(len(idx)-1))
		}
		if norm == NormStd && math.IsInf(std, 0) {
			// Rewards too far apart for their spread to be a number: NaN
			// (CheckCredit refuses them), not a silent 0.
			std = math.NaN()
		}
		for _, i := range idx {
			a := rewards[i] - mean
			if norm == NormStd {
				a /= std + Eps
			}
			adv[i] = a
		}
	}
	return adv, zeroVar
}
