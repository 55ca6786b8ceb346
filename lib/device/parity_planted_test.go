//go:build !cuda

package device_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pats-rl/pats/lib/model"
)

// recorder is a tb that notes failures instead of failing the test, so
// that a check can be run against a planted bug.
type recorder struct {
	name     string
	mu       sync.Mutex
	failures []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Log(...any)                {}
func (r *recorder) Name() string              { return r.name }
func (r *recorder) Fatal(args ...any)         { r.note(fmt.Sprint(args...)); runtime.Goexit() }
func (r *recorder) Errorf(f string, a ...any) { r.note(fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) {
	r.note(fmt.Sprintf(f, a...))
	runtime.Goexit()
}
func (r *recorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, s)
}

// failures runs check with a recorder and returns what it reported.
func failures(name string, check func(tb)) []string {
	r := &recorder{name: name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.failures
}

// standInPair is a random model on the CPU and the same model on a CPU
// stand-in of the device with bug planted.
func standInPair(t tb, cfg model.Config, seed uint64, peaked bool, bug string) (cpu, dev *model.Model) {
	cpu, dev = randomModel(t, cfg, seed), randomModel(t, cfg, seed)
	if peaked {
		peak(cpu)
		peak(dev)
	}
	attachStandIn(t, dev, bug)
	return cpu, dev
}

// TestParityChecksCatchPlantedBugs: each check the parity suite gained for
// the first GPU run passes on the CPU stand-in of the device, and fails
// when the stand-in carries a bug of the kind the check is there for
// (wrong RoPE position, no causal mask, wrong attention scale, wrong q
// gradient, decoding attention off by one key, a chunking error past 512
// attention rows or 441 logits rows, a sampling row with another row's
// uniform, a clone's cache offset, no CUDA graphs, results that change
// from one call to the next, a KV store one position late, a decoding
// kernel's wrong scale). The model checks also pass with every product's
// operands rounded to BF16, the device's expected error.
func TestParityChecksCatchPlantedBugs(t *testing.T) {
	small := model.Small(2000)
	long := model.Tiny(2000)
	long.MaxPositionEmbeddings = 2048
	seqs := randomSeqs(5, small.VocabSize, []int{37, 2, 100})
	peaked := func(bug string) func(tb) {
		return func(t tb) {
			cpu, dev := standInPair(t, small, 11, true, bug)
			checkPeaked(t, cpu, dev, seqs)
		}
	}
	decodeFull := func(bug string) func(tb) {
		return func(t tb) {
			_, dev := standInPair(t, small, 12, true, bug)
			checkDecodeFull(t, dev, randomSeqs(6, small.VocabSize, []int{40, 9}))
		}
	}
	longSeqs := func(bug string) func(tb) {
		return func(t tb) {
			cpu, dev := standInPair(t, long, 13, true, bug)
			checkLong(t, cpu, dev, []int{700, 64, 1100, 30})
		}
	}
	sampling := func(bug string) func(tb) {
		return func(t tb) {
			m, err := model.New(small, 14)
			if err != nil {
				t.Fatal(err)
			}
			attachStandIn(t, m, bug)
			checkSampling(t, m, randomSeqs(7, small.VocabSize, []int{5, 1, 12, 3, 8, 2}), model.Sampling{Temperature: 0.8, TopP: 0.9}, 8)
		}
	}
	cloned := func(bug string) func(tb) {
		return func(t tb) {
			_, dev := standInPair(t, small, 15, true, bug)
			checkClone(t, dev, randomSeqs(8, small.VocabSize, []int{30})[0])
		}
	}
	graphs := func(bug string) func(tb) {
		return func(t tb) {
			_, dev := standInPair(t, long, 16, false, bug)
			checkGraphs(t, dev, randomSeqs(9, long.VocabSize, []int{4, 7, 2}), 10)
		}
	}
	determinism := func(bug string) func(tb) {
		return func(t tb) {
			_, dev := standInPair(t, long, 17, true, bug)
			checkDeterminism(t, dev, randomSeqs(10, long.VocabSize, []int{50, 7}))
		}
	}
	decodeKernel := func(bug string) func(tb) {
		return func(t tb) { checkDecodeAttention(t, decodeAttentionCPU{bug: bug}, true) }
	}
	runPlanted(t, []plantedCase{
		{"peaked", peaked, []string{bugNone, bugBF16}, []string{bugRoPEPos, bugNoMask, bugScale, bugDQ}},
		{"decode-full", decodeFull, []string{bugNone, bugBF16}, []string{bugDecodeMask}},
		{"long", longSeqs, []string{bugNone}, []string{bugAttChunk, bugLogitChunk}},
		{"sampling", sampling, []string{bugNone}, []string{bugSampleU}},
		{"clone", cloned, []string{bugNone}, []string{bugClone}},
		{"graphs", graphs, []string{bugNone}, []string{bugNoGraphs}},
		{"determinism", determinism, []string{bugNone}, []string{bugNondet}},
		{"decode-attention-kernel", decodeKernel, []string{bugNone}, []string{bugKVPos, bugDecodeScale}},
	})
}

// plantedCase is a check run on the CPU stand-in: it must pass on each
// stand-in of pass and fail on each planted bug of bugs.
type plantedCase struct {
	check string
	run   func(bug string) func(tb)
	pass  []string // stand-ins that must pass
	bugs  []string // planted bugs that must fail
}

// runPlanted runs each case on its stand-ins and its planted bugs.
func runPlanted(t *testing.T, cases []plantedCase) {
	for _, c := range cases {
		for _, b := range c.pass {
			name := c.check + "/" + strings.TrimPrefix(b+"-passes", "-")
			t.Run(name, func(t *testing.T) {
				if f := failures(name, c.run(b)); len(f) > 0 {
					t.Errorf("failed on the stand-in %q: %s", b, strings.Join(f, "; "))
				}
			})
		}
		for _, b := range c.bugs {
			name := c.check + "/" + b
			t.Run(name, func(t *testing.T) {
				f := failures(name, c.run(b))
				if len(f) == 0 {
					t.Errorf("passed with the bug %q planted", b)
					return
				}
				t.Logf("caught %q: %s", b, f[0])
			})
		}
	}
}

// TestParityLoRAChecksCatchPlantedBugs: issue 60's checks pass on the CPU
// stand-in of the device (with and without every product's operands in
// BF16) and fail on their planted bugs: an adapter that cannot be switched
// off, recomputed log-probabilities one unit in the last place away, and a
// second backward of one recomputed forward that adds nothing.
func TestParityLoRAChecksCatchPlantedBugs(t *testing.T) {
	small := model.Small(2000)
	seqs := randomSeqs(5, small.VocabSize, []int{37, 2, 60})
	lora := func(bug string) func(tb) {
		return func(t tb) {
			cpu, dev := loraPair(t, small, 21)
			attachStandIn(t, dev, bug)
			checkLoRA(t, cpu, dev, seqs)
		}
	}
	recompute := func(bug string) func(tb) {
		return func(t tb) {
			_, dev := loraPair(t, small, 22)
			attachStandIn(t, dev, bug)
			checkRecompute(t, dev, seqs)
			full := randomModel(t, small, 23)
			attachStandIn(t, full, bug)
			checkRecompute(t, full, seqs)
		}
	}
	runPlanted(t, []plantedCase{
		{"lora", lora, []string{bugNone, bugBF16}, []string{bugLoRAOff}},
		{"recompute", recompute, []string{bugNone, bugBF16}, []string{bugRecompute, bugRebackward}},
	})
}
