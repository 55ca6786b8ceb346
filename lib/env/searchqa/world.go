package searchqa

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pats-rl/pats/lib/env/internal/splitmix"
)

// Entity kinds.
const (
	kindPerson = iota
	kindCompany
	kindCity
	kindCountry
	kindUniversity
	kindRiver
	numKinds
)

var kindNames = []string{"person", "company", "city", "country", "university", "river"}

// Entity counts.
const (
	numPersons      = 3400
	numCompanies    = 1000
	numCities       = 640
	numUniversities = 200
)

type entity struct {
	kind int
	name string
}

// relation is a functional relation between entity kinds, with the sentence
// that states it, the question phrasings and the oracle's query word.
type relation struct {
	name    string
	from    int
	to      int
	final   string // question when the relation is the last hop, %s = subject phrase
	np      string // noun-phrase prefix when the relation is an inner hop
	keyword string // the word the stating sentence uses (the oracle searches for it)
	pattern string // regexp of the stating sentence; %s = quoted subject, one group = object
}

var relations = []relation{
	{"born_in", kindPerson, kindCity, "in which city was %s born?", "the birthplace of ", "born", `%s was born in \d+ in ([a-z ]+)\.`},
	{"studied_at", kindPerson, kindUniversity, "which university did %s attend?", "the alma mater of ", "studied", `%s studied at ([a-z ]+)\.`},
	{"works_for", kindPerson, kindCompany, "which company does %s work for?", "the employer of ", "works", `%s works for ([a-z ]+?) as an? `},
	{"founded_by", kindCompany, kindPerson, "who founded %s?", "the founder of ", "founded", `%s was founded by ([a-z ]+?) in \d+\.`},
	{"has_ceo", kindCompany, kindPerson, "who is the ceo of %s?", "the ceo of ", "ceo", `the ceo of %s is ([a-z ]+)\.`},
	{"headquartered_in", kindCompany, kindCity, "in which city is %s headquartered?", "the headquarters city of ", "headquartered", `%s is headquartered in ([a-z ]+)\.`},
	{"located_in", kindCity, kindCountry, "in which country is %s located?", "the country of ", "located", `%s is a city located in ([a-z ]+)\.`},
	{"crossed_by", kindCity, kindRiver, "which river flows through %s?", "the river flowing through ", "flows", `the ([a-z ]+) flows through %s\.`},
	{"has_mayor", kindCity, kindPerson, "who is the mayor of %s?", "the mayor of ", "mayor", `the mayor of %s is ([a-z ]+)\.`},
	{"has_capital", kindCountry, kindCity, "what is the capital of %s?", "the capital of ", "capital", `the capital of %s is ([a-z ]+)\.`},
	{"campus_in", kindUniversity, kindCity, "where is the campus of %s?", "the campus city of ", "campus", `%s has its campus in ([a-z ]+)\.`},
	{"rises_in", kindRiver, kindCountry, "in which country does %s rise?", "the source country of ", "rises", `the %s rises in ([a-z ]+)\.`},
}

func relationIndex(name string) int {
	for i, r := range relations {
		if r.name == name {
			return i
		}
	}
	return -1
}

// factRe compiles the stating sentence of relation r about subject.
// Sentences start a passage or follow ". ".
func factRe(r *relation, subject string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\. )` + fmt.Sprintf(r.pattern, regexp.QuoteMeta(subject)))
}

// passage is one corpus document and the entities it names, in order.
type passage struct {
	text     string
	entities []int
}

// world holds the entities, the relation table and the corpus.
type world struct {
	ents     []entity
	byKind   [numKinds][]int
	byName   map[string]int
	obj      [][]int // obj[rel][entity] = object entity, -1 if undefined
	fact     [][]int // fact[rel][entity] = index of the passage stating it, -1
	passages []passage
}

func buildWorld(r *splitmix.Rand) *world {
	w := &world{byName: map[string]int{}}
	add := func(kind int, name string) {
		w.byName[name] = len(w.ents)
		w.byKind[kind] = append(w.byKind[kind], len(w.ents))
		w.ents = append(w.ents, entity{kind, name})
	}
	choose := func(kind int, n, count int, name func(i int) string) {
		perm := r.Perm(n)
		for _, k := range perm[:count] {
			add(kind, name(k))
		}
	}
	choose(kindPerson, len(firstNames)*len(lastNames), numPersons, func(i int) string {
		return firstNames[i/len(lastNames)] + " " + lastNames[i%len(lastNames)]
	})
	stems := make([]string, 0, len(stemHeads)*len(stemTails))
	for _, h := range stemHeads {
		for _, t := range stemTails {
			stems = append(stems, h+t)
		}
	}
	choose(kindCompany, len(stems)*len(companySuffixes), numCompanies, func(i int) string {
		return stems[i/len(companySuffixes)] + " " + companySuffixes[i%len(companySuffixes)]
	})
	choose(kindCity, len(cityPrefixes)*len(cityRoots), numCities, func(i int) string {
		return cityPrefixes[i/len(cityRoots)] + " " + cityRoots[i%len(cityRoots)]
	})
	choose(kindCountry, len(countryNames), len(countryNames), func(i int) string { return countryNames[i] })
	choose(kindUniversity, len(stems)*len(universityKinds), numUniversities, func(i int) string {
		return stems[i/len(universityKinds)] + " " + universityKinds[i%len(universityKinds)]
	})
	choose(kindRiver, len(riverRoots), len(riverRoots), func(i int) string { return riverRoots[i] + " river" })

	w.obj = make([][]int, len(relations))
	w.fact = make([][]int, len(relations))
	for i := range relations {
		w.obj[i] = make([]int, len(w.ents))
		w.fact[i] = make([]int, len(w.ents))
		for j := range w.obj[i] {
			w.obj[i][j], w.fact[i][j] = -1, -1
		}
	}
	set := func(rel string, s, o int) { w.obj[relationIndex(rel)][s] = o }
	any := func(kind int) int { return w.byKind[kind][r.Intn(len(w.byKind[kind]))] }

	persons, cities, countries := w.byKind[kindPerson], w.byKind[kindCity], w.byKind[kindCountry]
	// Cities: every country gets at least one city; its capital is one of them.
	citiesOf := map[int][]int{}
	for i, c := range cities {
		k := countries[i%len(countries)]
		if i >= len(countries) {
			k = any(kindCountry)
		}
		set("located_in", c, k)
		citiesOf[k] = append(citiesOf[k], c)
		set("crossed_by", c, any(kindRiver))
	}
	for _, k := range countries {
		cs := citiesOf[k]
		set("has_capital", k, cs[r.Intn(len(cs))])
	}
	// Mayors, founders and CEOs are distinct people.
	pp := r.Perm(len(persons))
	next := 0
	person := func() int { p := persons[pp[next]]; next++; return p }
	for _, c := range cities {
		set("has_mayor", c, person())
	}
	for _, c := range w.byKind[kindCompany] {
		set("founded_by", c, person())
		set("has_ceo", c, person())
		set("headquartered_in", c, any(kindCity))
	}
	for _, p := range persons {
		set("born_in", p, any(kindCity))
		set("studied_at", p, any(kindUniversity))
		set("works_for", p, any(kindCompany))
	}
	for _, u := range w.byKind[kindUniversity] {
		set("campus_in", u, any(kindCity))
	}
	for _, v := range w.byKind[kindRiver] {
		set("rises_in", v, any(kindCountry))
	}
	w.writePassages(r)
	return w
}

// writePassages writes the corpus: two passages per person, company and
// city, one per country, university and river. Each fact is stated once,
// in a passage about its subject.
func (w *world) writePassages(r *splitmix.Rand) {
	type part struct {
		text string
		ents []int
	}
	emit := func(facts []string, parts ...part) {
		var b strings.Builder
		var ents []int
		for i, p := range parts {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(p.text)
			ents = append(ents, p.ents...)
		}
		idx := len(w.passages)
		for _, f := range facts {
			// f is "relation:subject"
			i := strings.IndexByte(f, ':')
			var s int
			fmt.Sscan(f[i+1:], &s)
			w.fact[relationIndex(f[:i])][s] = idx
		}
		w.passages = append(w.passages, passage{text: b.String(), entities: dedupe(ents)})
	}
	n := func(id int) string { return w.ents[id].name }
	o := func(rel string, s int) int { return w.obj[relationIndex(rel)][s] }
	fk := func(rel string, s int) string { return fmt.Sprintf("%s:%d", rel, s) }
	for _, p := range w.byKind[kindPerson] {
		city, uni, co := o("born_in", p), o("studied_at", p), o("works_for", p)
		emit([]string{fk("born_in", p), fk("studied_at", p)},
			part{fmt.Sprintf("%s was born in %d in %s.", n(p), 1930+r.Intn(70), n(city)), []int{p, city}},
			part{fmt.Sprintf("%s studied at %s.", n(p), n(uni)), []int{uni}})
		job := jobs[r.Intn(len(jobs))]
		emit([]string{fk("works_for", p)},
			part{fmt.Sprintf("%s works for %s as %s %s.", n(p), n(co), article(job), job), []int{p, co}},
			part{fmt.Sprintf("%s enjoys %s.", n(p), hobbies[r.Intn(len(hobbies))]), nil})
	}
	for _, c := range w.byKind[kindCompany] {
		f, ceo, hq := o("founded_by", c), o("has_ceo", c), o("headquartered_in", c)
		emit([]string{fk("founded_by", c), fk("headquartered_in", c)},
			part{fmt.Sprintf("%s was founded by %s in %d.", n(c), n(f), 1850+r.Intn(166)), []int{c, f}},
			part{fmt.Sprintf("%s is headquartered in %s.", n(c), n(hq)), []int{hq}})
		emit([]string{fk("has_ceo", c)},
			part{fmt.Sprintf("the ceo of %s is %s.", n(c), n(ceo)), []int{c, ceo}},
			part{fmt.Sprintf("%s makes %s and employs %d people.", n(c), goods[r.Intn(len(goods))], 100*(1+r.Intn(99))), nil})
	}
	for _, c := range w.byKind[kindCity] {
		k, rv, m := o("located_in", c), o("crossed_by", c), o("has_mayor", c)
		emit([]string{fk("located_in", c), fk("crossed_by", c)},
			part{fmt.Sprintf("%s is a city located in %s.", n(c), n(k)), []int{c, k}},
			part{fmt.Sprintf("the %s flows through %s.", n(rv), n(c)), []int{rv}})
		emit([]string{fk("has_mayor", c)},
			part{fmt.Sprintf("the mayor of %s is %s.", n(c), n(m)), []int{c, m}},
			part{fmt.Sprintf("%s has a population of %d thousand.", n(c), 10*(1+r.Intn(99))), nil})
	}
	for _, k := range w.byKind[kindCountry] {
		emit([]string{fk("has_capital", k)},
			part{fmt.Sprintf("the capital of %s is %s.", n(k), n(o("has_capital", k))), []int{k, o("has_capital", k)}},
			part{fmt.Sprintf("%s has %d million people.", n(k), 1+r.Intn(99)), nil})
	}
	for _, u := range w.byKind[kindUniversity] {
		emit([]string{fk("campus_in", u)},
			part{fmt.Sprintf("%s has its campus in %s.", n(u), n(o("campus_in", u))), []int{u, o("campus_in", u)}},
			part{fmt.Sprintf("%s was established in %d.", n(u), 1800+r.Intn(200)), nil})
	}
	for _, v := range w.byKind[kindRiver] {
		emit([]string{fk("rises_in", v)},
			part{fmt.Sprintf("the %s rises in %s.", n(v), n(o("rises_in", v))), []int{v, o("rises_in", v)}},
			part{fmt.Sprintf("the %s is %d km long.", n(v), 10*(10+r.Intn(90))), nil})
	}
}

func article(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

func dedupe(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
