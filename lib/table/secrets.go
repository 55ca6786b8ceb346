package table

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// The credentials this process sends (an API key, a URL's password), so
// that Scrub removes them wherever they come back: a server's error body
// that echoes the key it got ("Incorrect API key provided: sk-..."), the
// Basic-auth header built from a URL's user and password, or any other
// text a server chooses to say. Scrub's patterns find credentials by their
// shape; the known ones are found by their value.
var known struct {
	sync.RWMutex
	forms []string // every form of every known secret, longest first
	seen  map[string]bool
}

// shortForm is the length under which a form is replaced only as a whole
// word: a short password ("pw") is not taken out of every longer word.
const shortForm = 6

// KnownSecret records secrets this process sends to a server (an API key,
// a password): from then on Scrub replaces each of them by "REDACTED",
// also written the ways a server may echo it: base64 (standard and URL
// alphabets, with and without padding), percent-encoded, and JSON-escaped.
// An empty secret is ignored.
func KnownSecret(secrets ...string) {
	known.Lock()
	defer known.Unlock()
	if known.seen == nil {
		known.seen = map[string]bool{}
	}
	for _, s := range secrets {
		if s == "" || known.seen[s] {
			continue
		}
		known.seen[s] = true
		for _, f := range secretForms(s) {
			if f != "" && f != "REDACTED" && !slices.Contains(known.forms, f) {
				known.forms = append(known.forms, f)
			}
		}
	}
	slices.SortStableFunc(known.forms, func(a, b string) int { return len(b) - len(a) })
}

// KnownURL records the credentials written in a URL (user:password@):
// the password, and "user:password" as a Basic-auth header carries it
// (base64), in both its decoded and its written (percent-encoded) forms.
// The user name alone is not a secret.
func KnownURL(raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return
	}
	user := u.User.Username()
	pass, hasPass := u.User.Password()
	if hasPass {
		KnownSecret(pass, user+":"+pass)
	} else {
		KnownSecret(user) // a user without a password is a token (https://TOKEN@host)
	}
	if at := strings.LastIndexByte(raw, '@'); at >= 0 {
		if i := strings.Index(raw, "://"); i >= 0 && i+3 < at {
			written := raw[i+3 : at]
			if _, p, ok := strings.Cut(written, ":"); ok {
				KnownSecret(p, written)
			}
		}
	}
}

// secretForms are the ways a server may write s back.
func secretForms(s string) []string {
	forms := []string{s}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(s)))
	}
	forms = append(forms, url.QueryEscape(s), url.PathEscape(s))
	if j, err := json.Marshal(s); err == nil {
		q := string(j[1 : len(j)-1])
		forms = append(forms, q, strings.ReplaceAll(q, "/", `\/`))
	}
	return forms
}

// ScrubKnown replaces every form of every known secret in s, and nothing
// else: for text a server wrote that is stored as it is (a proposal's
// rule), where Scrub's patterns could take ordinary words.
func ScrubKnown(s string) string { return scrubKnown(s) }

// scrubKnown replaces every form of every known secret in s.
func scrubKnown(s string) string {
	known.RLock()
	defer known.RUnlock()
	for _, f := range known.forms {
		if !strings.Contains(s, f) {
			continue
		}
		if len(f) >= shortForm {
			s = strings.ReplaceAll(s, f, "REDACTED")
			continue
		}
		s = replaceWord(s, f)
	}
	return s
}

// HoldsSecret reports whether s holds a form of a known secret (as
// scrubKnown would find it).
func HoldsSecret(s string) bool {
	return s != "" && scrubKnown(s) != s
}

// replaceWord replaces f in s where it is not part of a longer word
// (letters, digits, '+', '/', '-', '_').
func replaceWord(s, f string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, f)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(f)
		if (i == 0 || !wordByte(s[i-1])) && (j == len(s) || !wordByte(s[j])) {
			b.WriteString(s[:i])
			b.WriteString("REDACTED")
		} else {
			b.WriteString(s[:j])
		}
		s = s[j:]
	}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c >= 0x80
}
