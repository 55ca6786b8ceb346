package table

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://user:key@host:8000/v1", "http://REDACTED@host:8000/v1"},
		{"--endpoint u:PASS@127.0.0.1:1/v1", "--endpoint REDACTED@127.0.0.1:1/v1"},
		{`parse "u:P@SS@h:1/v1": first path segment`, `parse "REDACTED@h:1/v1": first path segment`},
		{"mail alice@example.org", "mail alice@example.org"},
		{"--endpoint=https://sk-123@api.example/v1", "--endpoint=https://REDACTED@api.example/v1"},
		// the password holds '@' or '/': the userinfo runs to the last '@'
		{"http://alice:p@ss@host/v1", "http://REDACTED@host/v1"},
		{`--endpoint "http://alice:pa/ss@host/v1" is not a URL`, `--endpoint "http://REDACTED@host/v1" is not a URL`},
		{`"http://alice:pa#ss@host/v1"`, `"http://REDACTED@host/v1"`},
		{`"http://alice:pa?ss@host/v1"`, `"http://REDACTED@host/v1"`},
		{"http://sk-12/3@host/v1", "http://REDACTED@host/v1"},
		{"http://[::1]:8000/v1?x=a@b", "http://[::1]:8000/v1?x=a@b"},
		{"http://host/v1?x=a@b", "http://host/v1?x=a@b"},
		// query credentials
		{"http://host/v1?api_key=sk-9&model=m", "http://host/v1?api_key=REDACTED&model=m"},
		{"https://h/p?key=abc#f", "https://h/p?key=REDACTED#f"},
		{"https://h/p?a=1&access_token=xyz&token=t&password=pw&secret=s&sig=q",
			"https://h/p?a=1&access_token=REDACTED&token=REDACTED&password=REDACTED&secret=REDACTED&sig=REDACTED"},
		{"https://h/p?max_tokens=5&tokenizer=bpe", "https://h/p?max_tokens=5&tokenizer=bpe"},
		// environment assignments and flags of a command
		{"exec:env OPENAI_API_KEY=sk-live python e.py", "exec:env OPENAI_API_KEY=REDACTED python e.py"},
		{"exec:python e.py --api-key sk-live --split train", "exec:python e.py --api-key REDACTED --split train"},
		{"exec:python e.py --token=abc --tasks 3", "exec:python e.py --token=REDACTED --tasks 3"},
		{"rollout --max-tokens 512 --tokenizer bpe --seed 1", "rollout --max-tokens 512 --tokenizer bpe --seed 1"},
		// headers and JSON echoed by a server
		{`401: {"error":"bad key","headers":{"Authorization":"Bearer sk-abc123"}}`,
			`401: {"error":"bad key","headers":{"Authorization":"REDACTED"}}`},
		{"request had Authorization: Basic YWxpY2U6cw== and failed", "request had Authorization: REDACTED"},
		{"got bearer sk-abcdef in header", "got bearer REDACTED in header"},
		{`{"api_key": "sk-1", "model": "m"}`, `{"api_key": "REDACTED", "model": "m"}`},
		{"user@host", "user@host"},
		{"traj.parquet", "traj.parquet"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Scrub(c.in); got != c.want {
			t.Errorf("Scrub(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Scrub(c.want); got != c.want {
			t.Errorf("Scrub is not idempotent on %q: %q", c.want, got)
		}
	}
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{"control", "--endpoint", "http://alice:s3cret@127.0.0.1:1/v1"}
	if got := CommandLine(); strings.Contains(got, "s3cret") || strings.Contains(got, "alice") {
		t.Errorf("CommandLine() = %q keeps the credentials", got)
	}
}

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain name.parquet", "plain name.parquet"},
		{"a\x1b[31mred\x07", `a\x1b[31mred\x07`},
		{"two\nlines\r", `two\x0alines\x0d`},
		{"tab\tkept ü", "tab\tkept ü"},
		{"bad\xffbyte \u0085", `bad\xffbyte \u0085`},
		{"\ufffd stays", "\ufffd stays"},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got, want := MarkdownCell("a|b\nc"), `a\|b\x0ac`; got != want {
		t.Errorf("MarkdownCell = %q, want %q", got, want)
	}
}

// TestScrubKnownSecrets: a secret this process sends comes back from a
// server in any of the forms it may write it (as it is, base64 in both
// alphabets, padded or not, percent-encoded, JSON-escaped, as the Basic
// header of a URL's user and password), and none survives Scrub; a short
// password is taken out as a word, not out of longer words.
func TestScrubKnownSecrets(t *testing.T) {
	key := "sk-Kn0wn/k+y?=x"
	KnownSecret(key)
	KnownURL("http://alice:p%40w@127.0.0.1:1/v1")
	b64 := func(s string) []string {
		return []string{base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s)),
			base64.URLEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s))}
	}
	j, _ := json.Marshal(key)
	forms := append([]string{key, url.QueryEscape(key), url.PathEscape(key), string(j[1 : len(j)-1]),
		strings.ReplaceAll(key, "/", `\/`), "alice:p@w", "alice:p%40w", "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:p@w"))},
		append(b64(key), b64("alice:p@w")...)...)
	for _, f := range forms {
		for _, msg := range []string{`{"error": "Incorrect API key provided: ` + f + `"}`, "got " + f, f} {
			got := Scrub(msg)
			for _, secret := range []string{key, "p@w", "p%40w", f} {
				if strings.Contains(got, secret) {
					t.Errorf("Scrub(%q) = %q keeps %q", msg, got, secret)
				}
			}
			if !strings.Contains(got, "REDACTED") || !HoldsSecret(msg) {
				t.Errorf("Scrub(%q) = %q: no REDACTED (HoldsSecret %v)", msg, got, HoldsSecret(msg))
			}
		}
	}
	KnownURL("http://bob:pw@127.0.0.1:1/v1")
	if got, want := Scrub("password pw refused; pwd and upward stay"), "password REDACTED refused; pwd and upward stay"; got != want {
		t.Errorf("Scrub short password = %q, want %q", got, want)
	}
	if HoldsSecret("upward") {
		t.Errorf("HoldsSecret(upward) with the password pw known")
	}
	// an unknown Basic credential is found by its shape; a plain word after
	// "basic" is not one
	if got := Scrub("header Basic " + base64.StdEncoding.EncodeToString([]byte("carol:other"))); got != "header Basic REDACTED" {
		t.Errorf("Scrub of an unknown Basic credential = %q", got)
	}
	if got := Scrub("a basic understanding"); got != "a basic understanding" {
		t.Errorf("Scrub(a basic understanding) = %q", got)
	}
}

// TestScrubArgs: the whole value of a credential flag goes, whatever it
// looks like (a leading dash, blanks), in both spellings.
func TestScrubArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"rollout", "--api-key", "-dashSECRET", "-o", "t.parquet"}, []string{"rollout", "--api-key", "REDACTED", "-o", "t.parquet"}},
		{[]string{"rollout", "--api-key", "a b SECRET", "--seed", "1"}, []string{"rollout", "--api-key", "REDACTED", "--seed", "1"}},
		{[]string{"rollout", "--api-key=a b SECRET"}, []string{"rollout", "--api-key=REDACTED"}},
		{[]string{"rollout", "-token", "--x"}, []string{"rollout", "-token", "REDACTED"}},
		{[]string{"rollout", "--tokenizer", "ck/0", "--max-tokens", "5"}, []string{"rollout", "--tokenizer", "ck/0", "--max-tokens", "5"}},
		{[]string{"control", "--endpoint", "http://u:pw1234@h/v1"}, []string{"control", "--endpoint", "http://REDACTED@h/v1"}},
		{[]string{"x", "--api-key"}, []string{"x", "--api-key"}},
	} {
		if got := ScrubArgs(c.in); !slices.Equal(got, c.want) {
			t.Errorf("ScrubArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{"rollout", "--api-key", "-dash SECRET", "--seed", "1"}
	if got := CommandLine(); strings.Contains(got, "SECRET") || strings.Contains(got, "dash") {
		t.Errorf("CommandLine() = %q keeps the key", got)
	}
}
