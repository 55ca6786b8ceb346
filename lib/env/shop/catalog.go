package shop

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pats-rl/pats/lib/env/internal/splitmix"
	"github.com/pats-rl/pats/lib/words"
)

// dim is one option dimension of a category (size, color, ...). Phrase
// renders a chosen value inside an instruction ("size %s", "in %s").
type dim struct {
	name   string
	values []string
	phrase string
}

// category is one task type: its product types, the attribute pool its
// products draw from and its option dimensions. Option values are distinct
// across the dimensions of a category, so a clicked value names its dimension.
type category struct {
	name  string
	types []string
	attrs []string
	dims  []dim
}

// categories is the fixed domain: WebShop's five task types. Product type
// names are unique across categories and no type name ends another one, so a
// title's type is its longest type-name suffix.
var categories = []category{
	{
		name:  "beauty",
		types: []string{"shampoo", "conditioner", "lipstick", "face cream", "nail polish", "perfume", "sunscreen", "body lotion"},
		attrs: []string{"paraben free", "cruelty free", "long lasting", "travel size", "fragrance free", "vegan", "natural ingredients", "sensitive skin"},
		dims: []dim{
			{name: "size", values: []string{"2 ounce", "4 ounce", "8 ounce", "16 ounce"}, phrase: "in %s"},
			{name: "scent", values: []string{"lavender", "rose", "vanilla", "citrus", "unscented"}, phrase: "%s scent"},
		},
	},
	{
		name:  "electronics",
		types: []string{"headphones", "phone case", "charger", "speaker", "keyboard", "mouse", "webcam", "smart watch"},
		attrs: []string{"wireless", "noise cancelling", "fast charging", "water resistant", "usb c", "long battery", "high definition", "lightweight"},
		dims: []dim{
			{name: "color", values: []string{"black", "white", "silver", "blue", "red"}, phrase: "in %s"},
			{name: "model", values: []string{"standard", "pro", "mini", "max"}, phrase: "%s model"},
		},
	},
	{
		name:  "fashion",
		types: []string{"jacket", "sneakers", "dress", "shirt", "jeans", "hoodie", "boots", "sweater"},
		attrs: []string{"water resistant", "machine washable", "slim fit", "long sleeve", "breathable", "lightweight", "quick drying", "fleece lined"},
		dims: []dim{
			{name: "color", values: []string{"black", "white", "navy", "red", "grey", "olive", "beige"}, phrase: "in %s"},
			{name: "size", values: []string{"small", "medium", "large", "x large"}, phrase: "size %s"},
		},
	},
	{
		name:  "food",
		types: []string{"coffee", "tea", "cookies", "granola", "pasta sauce", "chocolate", "trail mix", "protein bar"},
		attrs: []string{"gluten free", "sugar free", "organic", "low calorie", "non gmo", "keto friendly", "high protein", "dairy free"},
		dims: []dim{
			{name: "flavor", values: []string{"original", "vanilla", "cocoa", "caramel", "honey", "mint"}, phrase: "%s flavor"},
			{name: "pack", values: []string{"pack of 2", "pack of 4", "pack of 6", "pack of 12"}, phrase: "%s"},
		},
	},
	{
		name:  "furniture",
		types: []string{"office chair", "desk", "bookshelf", "sofa", "bed frame", "coffee table", "floor lamp", "nightstand"},
		attrs: []string{"easy assembly", "solid wood", "storage space", "space saving", "mid century", "height adjustable", "living room", "scratch resistant"},
		dims: []dim{
			{name: "color", values: []string{"black", "white", "oak", "walnut", "grey"}, phrase: "in %s"},
			{name: "size", values: []string{"small", "medium", "large"}, phrase: "size %s"},
		},
	},
}

var brands = []string{
	"acme", "bolt", "crest", "dune", "ember", "fable", "glint", "harbor", "iris", "juno",
	"kite", "lumen", "maple", "nova", "orbit", "pixel", "quill", "ridge", "sable", "tidal",
	"umber", "vista", "willow", "zephyr",
}

// Product is one catalogue item. Prices are in cents.
type Product struct {
	ID         string   // "b-07-42": shown on results pages and clicked
	Category   string   // one of the five task types
	Type       string   // product type, e.g. "jacket"
	Title      string   // "<brand> <attribute> <type>"
	Attributes []string // sorted
	Options    []Option // every offered (dimension, value), dimension-major in category order
	PriceCents int
}

// Option is one option value of a dimension.
type Option struct {
	Dim   string
	Value string
}

// Price renders the price as "$45.99".
func (p *Product) Price() string { return fmt.Sprintf("$%d.%02d", p.PriceCents/100, p.PriceCents%100) }

// offers reports whether the product offers value under dimension d.
func (p *Product) offers(d, v string) bool {
	for _, o := range p.Options {
		if o.Dim == d && o.Value == v {
			return true
		}
	}
	return false
}

// dimOf returns the dimension of an offered value, or "".
func (p *Product) dimOf(v string) string {
	for _, o := range p.Options {
		if o.Value == v {
			return o.Dim
		}
	}
	return ""
}

func (p *Product) hasAttr(a string) bool {
	for _, x := range p.Attributes {
		if x == a {
			return true
		}
	}
	return false
}

// text is what the search index sees of a product.
func (p *Product) text() string {
	var b strings.Builder
	b.WriteString(p.Title)
	for _, a := range p.Attributes {
		b.WriteString(" " + a)
	}
	for _, o := range p.Options {
		b.WriteString(" " + o.Value)
	}
	b.WriteString(" " + p.Category)
	return b.String()
}

func categoryByName(name string) *category {
	for i := range categories {
		if categories[i].name == name {
			return &categories[i]
		}
	}
	return nil
}

// categoryOfType maps a product type to its category.
func categoryOfType(t string) *category {
	for i := range categories {
		for _, x := range categories[i].types {
			if x == t {
				return &categories[i]
			}
		}
	}
	return nil
}

// allTypes lists every product type, longest first (for suffix matching).
var allTypes = func() []string {
	var out []string
	for _, c := range categories {
		out = append(out, c.types...)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}()

// NumProducts is the catalogue size.
const NumProducts = 1200

// buildCatalogue generates the catalogue deterministically: NumProducts
// products spread evenly over the 40 product types.
func buildCatalogue(r *splitmix.Rand) []Product {
	// Ids: a shuffled sample of 0..9999 rendered "b-NN-NN".
	ids := make([]int, 10000)
	for i := range ids {
		ids[i] = i
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })

	type slot struct {
		cat *category
		typ string
	}
	var slots []slot
	for ci := range categories {
		for _, t := range categories[ci].types {
			slots = append(slots, slot{&categories[ci], t})
		}
	}
	base := make(map[string]int, len(slots))
	for _, s := range slots {
		base[s.typ] = 10 + 5*r.Intn(30) // dollars, 10..155
	}
	out := make([]Product, NumProducts)
	for i := range out {
		s := slots[i%len(slots)]
		c := s.cat
		p := &out[i]
		p.ID = fmt.Sprintf("b-%02d-%02d", ids[i]/100, ids[i]%100)
		p.Category = c.name
		p.Type = s.typ
		nAttr := 3 + r.Intn(3)
		perm := r.Perm(len(c.attrs))
		for _, k := range perm[:nAttr] {
			p.Attributes = append(p.Attributes, c.attrs[k])
		}
		titleAttr := p.Attributes[0]
		sort.Strings(p.Attributes)
		brand := brands[r.Intn(len(brands))]
		p.Title = brand + " " + titleAttr + " " + s.typ
		for _, d := range c.dims {
			n := 2 + r.Intn(len(d.values)-1)
			perm := r.Perm(len(d.values))[:n]
			sort.Ints(perm)
			for _, k := range perm {
				p.Options = append(p.Options, Option{Dim: d.name, Value: d.values[k]})
			}
		}
		dollars := base[s.typ] * (60 + r.Intn(100)) / 100
		if dollars < 3 {
			dollars = 3
		}
		cents := []int{99, 49, 0}[r.Intn(3)]
		p.PriceCents = dollars*100 + cents
	}
	return out
}

// titleType returns the product type a title names: its longest type-name
// suffix, or "".
func titleType(title string) string {
	t := " " + strings.Join(words.Alnum(title), " ")
	for _, ty := range allTypes {
		if strings.HasSuffix(t, " "+ty) {
			return ty
		}
	}
	return ""
}
