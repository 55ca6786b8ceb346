package scaffold

import (
	"fmt"
	"strings"
)

// Default validator rules beside the caps (DefaultMaxItems and the others).
const (
	DefaultMinSupport    = 2  // distinct supporting cards an addition needs
	DefaultMaxItemTokens = 40 // tokens per item
)

// Limits are the bounds a snapshot and an iteration's edits keep: the caps
// per scope, the EXPAND quota, and the two per-addition rules. The
// validator enforces them; the controller picks FORCED_PRUNE at the caps;
// the refiner keeps to them so that its proposals pass. A pipeline gives
// control and validate the same values.
type Limits struct {
	MaxItems         int // per task type (task + mistake items); DefaultMaxItems
	MaxTokens        int // per task type; DefaultMaxTokens
	MaxGeneralItems  int // general layer; DefaultMaxGeneralItems
	MaxGeneralTokens int // general layer; DefaultMaxGeneralTokens
	ExpandQuota      int // additions per scope per iteration; DefaultExpandQuota
	MinSupport       int // distinct cards an addition needs; DefaultMinSupport
	MaxItemTokens    int // tokens per item; DefaultMaxItemTokens
	// Fade shrinks the caps over the end of a run (At); the zero value
	// keeps them whole.
	Fade Fade
}

// DefaultLimits returns the defaults.
func DefaultLimits() Limits {
	return Limits{MaxItems: DefaultMaxItems, MaxTokens: DefaultMaxTokens, MaxGeneralItems: DefaultMaxGeneralItems,
		MaxGeneralTokens: DefaultMaxGeneralTokens, ExpandQuota: DefaultExpandQuota,
		MinSupport: DefaultMinSupport, MaxItemTokens: DefaultMaxItemTokens}
}

// Validate reports limits that no snapshot could keep; the message names
// the value, not an option.
func (l Limits) Validate() error {
	switch {
	case l.MaxItems <= 0 || l.MaxTokens <= 0 || l.MaxGeneralItems <= 0 || l.MaxGeneralTokens <= 0:
		return fmt.Errorf("caps must be positive (items %d, tokens %d, general items %d, general tokens %d)",
			l.MaxItems, l.MaxTokens, l.MaxGeneralItems, l.MaxGeneralTokens)
	case l.ExpandQuota < 0:
		return fmt.Errorf("expand quota must be >= 0, got %d", l.ExpandQuota)
	case l.MinSupport < 1:
		return fmt.Errorf("min support must be at least 1, got %d", l.MinSupport)
	case l.MaxItemTokens < 1:
		return fmt.Errorf("max item tokens must be at least 1, got %d", l.MaxItemTokens)
	}
	return l.Fade.Validate()
}

// Caps returns the item and token caps of scope t ("" = general).
func (l Limits) Caps(t string) (items, tokens int) {
	if t == "" {
		return l.MaxGeneralItems, l.MaxGeneralTokens
	}
	return l.MaxItems, l.MaxTokens
}

// Primitives lists the four primitives a scope can be given (None aside).
var Primitives = []string{Expand, Revise, Compress, ForcedPrune}

// IsPrimitive reports whether p is one of Primitives.
func IsPrimitive(p string) bool {
	for _, x := range Primitives {
		if x == p {
			return true
		}
	}
	return false
}

// ParsePrimitives reads a primitive restriction: "all": all four;
// "expand": EXPAND only; "no-<name>": all but one (e.g. "no-revise"); or a
// comma list of names ("expand,compress"). Names are case-insensitive;
// "prune" and "forced_prune" name FORCED_PRUNE. An empty restriction is an
// error (it would allow nothing, or everything, by accident).
func ParsePrimitives(s string) ([]string, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	name := func(x string) (string, error) {
		x = strings.TrimSpace(x)
		switch x {
		case "expand":
			return Expand, nil
		case "revise":
			return Revise, nil
		case "compress":
			return Compress, nil
		case "prune", "forced_prune", "forced-prune":
			return ForcedPrune, nil
		}
		return "", fmt.Errorf("unknown primitive %q (want expand, revise, compress or prune)", x)
	}
	if s == "" {
		return nil, fmt.Errorf("empty (want all, a primitive, no-<primitive> or a comma list such as expand,compress)")
	}
	if s == "all" {
		return append([]string(nil), Primitives...), nil
	}
	if strings.HasPrefix(s, "no-") {
		drop, err := name(s[3:])
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range Primitives {
			if p != drop {
				out = append(out, p)
			}
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, x := range strings.Split(s, ",") {
		p, err := name(x)
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}
