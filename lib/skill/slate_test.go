package skill

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func names(ss []Skill) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}

func TestSlateProperties(t *testing.T) {
	for env, types := range envTaskTypes {
		l, err := ShippedLibrary(env)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range types {
			nMis := len(l.Misleading(tt))
			for _, k := range []int{1, 2, 5, DefaultSlateSize} {
				for seed := int64(0); seed < 20; seed++ {
					sl, err := l.Slate(tt, k, seed)
					if err != nil {
						t.Fatalf("%s %s k=%d: %v", env, tt, k, err)
					}
					if len(sl) != k {
						t.Fatalf("%s %s k=%d: %d skills", env, tt, k, len(sl))
					}
					seen := map[string]bool{}
					right, mis := 0, 0
					for _, s := range sl {
						if seen[s.Name] {
							t.Fatalf("%s %s: %q twice in %v", env, tt, s.Name, names(sl))
						}
						seen[s.Name] = true
						if l.IsRight(s.Name, tt) {
							right++
						}
						if l.IsMisleading(s.Name, tt) {
							mis++
						}
					}
					if right != 1 {
						t.Errorf("%s %s k=%d seed=%d: %d right skills in %v", env, tt, k, seed, right, names(sl))
					}
					if wantMis := min(nMis, max(1, k/4), k-1); mis < wantMis {
						t.Errorf("%s %s k=%d seed=%d: %d misleading, want >= %d", env, tt, k, seed, mis, wantMis)
					}
				}
			}
		}
	}
}

func TestSlateDeterministic(t *testing.T) {
	l, err := ShippedLibrary("household")
	if err != nil {
		t.Fatal(err)
	}
	tt := "pick_heat_then_place_in_recep"
	a, _ := l.Slate(tt, 16, 7)
	b, _ := l.Slate(tt, 16, 7)
	if !reflect.DeepEqual(names(a), names(b)) {
		t.Errorf("same seed, different slates:\n%v\n%v", names(a), names(b))
	}
	// Different seeds give different slates (order or content), and the
	// right skill is not always in the same place.
	distinct := map[string]bool{}
	pos := map[int]bool{}
	for seed := int64(0); seed < 30; seed++ {
		s, err := l.Slate(tt, 16, seed)
		if err != nil {
			t.Fatal(err)
		}
		distinct[strings.Join(names(s), ",")] = true
		for i, sk := range s {
			if l.IsRight(sk.Name, tt) {
				pos[i] = true
			}
		}
	}
	if len(distinct) < 25 {
		t.Errorf("30 seeds gave only %d distinct slates", len(distinct))
	}
	if len(pos) < 5 {
		t.Errorf("right skill took only %d positions over 30 seeds", len(pos))
	}
	// The task type enters the seed: two types with one seed differ.
	c, _ := l.Slate("pick_cool_then_place_in_recep", 16, 7)
	if reflect.DeepEqual(names(a), names(c)) {
		t.Error("two task types gave the same slate")
	}
}

func TestSlateChoosesAmongRight(t *testing.T) {
	// shop has two skills right for every type: both must appear over seeds.
	l, err := ShippedLibrary("shop")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Right("food")) < 2 {
		t.Skip("needs two right skills")
	}
	got := map[string]bool{}
	for seed := int64(0); seed < 40; seed++ {
		s, _ := l.Slate("food", 4, seed)
		for _, sk := range s {
			if l.IsRight(sk.Name, "food") {
				got[sk.Name] = true
			}
		}
	}
	if len(got) != len(l.Right("food")) {
		t.Errorf("right skills drawn %v, want all of %v", got, l.Right("food"))
	}
}

func TestSlateErrors(t *testing.T) {
	var skills []Skill
	for i := range 5 {
		skills = append(skills, Skill{Name: fmt.Sprintf("u%d", i)})
	}
	skills = append(skills,
		Skill{Name: "r1", RightFor: []string{"t"}},
		Skill{Name: "r2", RightFor: []string{"t"}},
		Skill{Name: "m1", MisleadingFor: []string{"t"}})
	l, err := New(skills)
	if err != nil {
		t.Fatal(err)
	}
	// At most 1 right + 1 misleading + 5 unrelated = 7 (r2 is left out).
	if _, err := l.Slate("t", 7, 1); err != nil {
		t.Errorf("k=7: %v", err)
	}
	for _, c := range []struct {
		tt      string
		k       int
		wantErr string
	}{
		{"t", 8, "at most 7"},
		{"t", 0, "at least 1"},
		{"t", -3, "at least 1"},
		{"other", 3, "no skill is right"},
	} {
		if _, err := l.Slate(c.tt, c.k, 1); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("Slate(%q, %d): %v, want error containing %q", c.tt, c.k, err, c.wantErr)
		}
	}
	// With k=2 the misleading skill takes the second place.
	s, _ := l.Slate("t", 2, 3)
	if mis := l.IsMisleading(s[0].Name, "t") || l.IsMisleading(s[1].Name, "t"); !mis {
		t.Errorf("k=2 slate %v lacks the misleading skill", names(s))
	}
}
