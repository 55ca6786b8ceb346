package household

import (
	"sort"
	"strconv"
	"sync"

	"github.com/pats-rl/pats/lib/words"
)

// vocabTexts holds every fixed phrase the environment writes: goal forms,
// observation templates and command words. Names of kinds and instance
// numbers are added separately.
var vocabTexts = []string{
	textNothing, textRoomStart,
	"Your task is to: put a some in on.",
	"look at under the examine the with the.",
	"clean some and put it put a clean. heat some and put it put a hot.",
	"cool some and put it put a cool. put two find two and put them.",
	"You arrive at. The is closed. The is open. In it, you see nothing. On the, you see a, and a.",
	"You open the. You close the. You pick up the from the. You put the in/on the.",
	"You heat the using the. You cool the using the. You clean the using the.",
	"You turn on the. You turn off the. This is a clean hot cool. It is on. It is off.",
	"You are facing the. You are carrying: a. You are not carrying anything.",
	"go to open close take from put in/on heat cool clean with use examine look inventory",
}

// maxInstance bounds the instance numbers that can occur in names.
const maxInstance = 20

var (
	vocabOnce sync.Once
	vocabList []string
)

func vocabulary() []string {
	vocabOnce.Do(func() {
		seen := map[string]bool{}
		add := func(t string) {
			for _, w := range words.Split(t) {
				seen[w] = true
			}
		}
		for _, t := range vocabTexts {
			add(t)
		}
		for _, r := range recepKinds {
			add(r.name)
		}
		for _, o := range objKinds {
			add(o.name)
		}
		for _, l := range lampKinds {
			add(l.name)
		}
		for i := 0; i <= maxInstance; i++ {
			add(strconv.Itoa(i))
		}
		for w := range seen {
			vocabList = append(vocabList, w)
		}
		sort.Strings(vocabList)
	})
	return append([]string(nil), vocabList...)
}
