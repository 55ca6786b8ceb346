package validate

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
)

var (
	fzPrims  = []string{scaffold.Expand, scaffold.Revise, scaffold.Compress, scaffold.ForcedPrune, scaffold.None, ""}
	fzOps    = []string{table.OpAdd, table.OpEdit, table.OpMerge, table.OpDelete, "", "replace"}
	fzTypes  = []string{"a", "b", "", "zz"}
	fzLayers = []string{"task", "mistake", "general", "", "bogus"}
	fzTexts  = []string{
		"Open the microwave.", "Take the object first.", "take the object first", "", "   ",
		"tab\there", "Short.", "A much longer rule that says a lot of words about what to do next in the room.",
		"Heat it.", "Do not loop.", "x", "Cool the object with the fridge.", "line\nbreak", "Plan before acting.",
		"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word",
	}
	fzCards   = []string{"c1", "c2", "c3", "c4", "c5", "c9", ""}
	fzTargets = []string{"g-1", "t-a-1", "t-a-2", "m-a-1", "t-b-1", "nope"}
)

// proposalsFrom decodes fuzz bytes: 8 bytes per proposal.
func proposalsFrom(data []byte) []table.Proposal {
	var out []table.Proposal
	for i := 0; i+8 <= len(data) && len(out) < 24; i += 8 {
		b := data[i : i+8]
		p := table.Proposal{
			ProposalID: fmt.Sprintf("p%02d", int(b[0])%20),
			Primitive:  fzPrims[int(b[1])%len(fzPrims)],
			Op:         fzOps[int(b[2])%len(fzOps)],
			TaskType:   fzTypes[int(b[3])%len(fzTypes)],
			Layer:      fzLayers[int(b[4])%len(fzLayers)],
			Text:       fzTexts[int(b[5])%len(fzTexts)],
		}
		own := map[string][]string{"a": {"t-a-1", "t-a-2", "m-a-1"}, "b": {"t-b-1"}, "": {"g-1"}, "zz": {"nope"}}[p.TaskType]
		for k := 0; k < int(b[6])%4; k++ {
			if b[6]&0x80 != 0 { // targets of the proposal's own scope
				p.Targets = append(p.Targets, own[(int(b[6])/4+k)%len(own)])
			} else {
				p.Targets = append(p.Targets, fzTargets[(int(b[6])/4+k*int(b[7]|1))%len(fzTargets)])
			}
		}
		good := map[string][]string{"a": {"c1", "c2", "c3"}, "b": {"c4", "c5"}, "": {"c1", "c4", "c5"}, "zz": {"c1", "c2"}}[p.TaskType]
		for k := 0; k < int(b[7])%4; k++ {
			if b[7]&0x80 != 0 { // cards of the right type
				p.Support = append(p.Support, good[(int(b[7])/4+k)%len(good)])
			} else {
				p.Support = append(p.Support, fzCards[(int(b[7])/4+k*3+int(b[5]))%len(fzCards)])
			}
		}
		// An item created earlier in the batch can be a later target.
		if b[0]%5 == 0 && len(out) > 0 {
			p.Targets = append(p.Targets, "t-a-"+fmt.Sprint(b[3]%3))
		}
		out = append(out, p)
	}
	return out
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 1, 2, 1, 2, 0, 0, 1, 9, 0})
	f.Add([]byte{3, 2, 3, 0, 0, 0, 1, 0, 4, 3, 3, 0, 0, 0, 5, 0, 5, 2, 2, 0, 0, 8, 6, 0})
	f.Add([]byte("some arbitrary bytes to start from, long enough for a few proposals"))
	f.Fuzz(func(t *testing.T, data []byte) {
		props := proposalsFrom(data)
		o := DefaultOptions()
		o.MaxItems, o.MaxTokens, o.MaxGeneralItems, o.MaxGeneralTokens = 5, 30, 2, 12
		o.MaxItemTokens = 20
		o.Iteration = 3
		snap := base()
		next, dec := Apply(snap, props, cards(), o)
		next2, dec2 := Apply(base(), props, cards(), o)
		if !reflect.DeepEqual(next, next2) || !reflect.DeepEqual(dec, dec2) {
			t.Fatal("not deterministic")
		}
		if len(dec) != len(props) {
			t.Fatalf("%d decisions for %d proposals", len(dec), len(props))
		}
		// unique ids, non-empty text, no control characters, layer/type
		// consistency, token counts
		if err := scaffold.Check(next, scaffold.WordCount); err != nil {
			t.Fatal(err)
		}
		cardType := map[string]string{}
		for _, c := range cards() {
			cardType[c.CardID] = c.TaskType
		}
		prims := map[string]map[string]bool{} // scope -> accepted primitives
		for i, d := range dec {
			if d.Accepted != (d.Reason == OK) || d.Reason == "" {
				t.Fatalf("decision %+v", d)
			}
			if !d.Accepted {
				continue
			}
			p := props[0]
			for _, q := range props { // find the proposal judged (ids may repeat: first wins)
				if q.ProposalID == d.ProposalID {
					p = q
					break
				}
			}
			_ = i
			if !Allowed(p.Primitive, p.Op) {
				t.Fatalf("accepted %s under %s", p.Op, p.Primitive)
			}
			if p.Op == table.OpAdd {
				sup := sortedUnique(p.Support)
				if len(sup) < 2 {
					t.Fatalf("accepted add with support %v", p.Support)
				}
				for _, c := range sup {
					if ct, ok := cardType[c]; !ok || (p.TaskType != "" && ct != p.TaskType) {
						t.Fatalf("accepted add with bad card %s", c)
					}
				}
			}
			if prims[p.TaskType] == nil {
				prims[p.TaskType] = map[string]bool{}
			}
			prims[p.TaskType][p.Primitive] = true
		}
		for _, scope := range []string{"", "a", "b", "zz"} {
			n0, t0 := scaffold.ScopeTotals(snap, scope)
			n1, t1 := scaffold.ScopeTotals(next, scope)
			mi, mt := o.Caps(scope)
			// caps: the base snapshot is within them, so the next one is too
			if n0 <= mi && n1 > mi || t0 <= mt && t1 > mt {
				t.Fatalf("scope %q over a cap: %d items %d tokens", scope, n1, t1)
			}
			ps := prims[scope]
			if !ps[scaffold.Expand] && !ps[scaffold.Revise] && (n1 > n0 || t1 > t0) {
				// only COMPRESS / FORCED_PRUNE accepted: never grows
				t.Fatalf("scope %q grew under %v: %d->%d items, %d->%d tokens", scope, ps, n0, n1, t0, t1)
			}
			if !ps[scaffold.Expand] && n1 > n0 {
				t.Fatalf("scope %q gained items without EXPAND", scope)
			}
			if len(ps) == 0 && (n1 != n0 || t1 != t0) {
				t.Fatalf("scope %q changed without an accepted proposal", scope)
			}
		}
		for _, it := range next {
			if it.Layer == scaffold.LayerGeneral && it.TaskType != "" || it.Layer != scaffold.LayerGeneral && it.TaskType == "" {
				t.Fatalf("layer/type: %+v", it)
			}
		}
	})
}
