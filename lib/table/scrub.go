package table

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scrub removes credentials from s, so that a command line, a URL, an
// environment command or a remote message can be recorded in an output or
// printed in a message. It is the one scrubber of the project: every place
// such text reaches a file or stderr goes through it (CommandLine, the
// metadata written by Write, the message of every failing command, the
// name of an exec: environment). It replaces by "REDACTED":
//
//   - the user and password of a URL: everything between "://" and the
//     last '@' before the URL's query, fragment, a blank or a quote (so a
//     password holding '@' or '/' goes too);
//   - the user and password of an address without a scheme
//     ("u:PASS@host:1/v1", as an --endpoint may be mistyped): a word's
//     part before '@' that holds a ':' and no '/';
//   - the value of a credential given as NAME=VALUE (a URL query
//     parameter, an environment assignment, a --flag=value) or as
//     "NAME": "VALUE" (JSON) or as --NAME VALUE (a flag of a command),
//     where NAME, split at '_', '-' and '.', has a part such as key,
//     apikey, token, secret, password, passwd, pwd, auth, credential,
//     signature or sig (so api_key, access_token, OPENAI_API_KEY,
//     --api-key, X-Api-Key; not max_tokens);
//   - the credentials of an Authorization header, any "Bearer X", and any
//     "Basic X" whose X is base64 of "user:password";
//   - every secret this process sends to a server (KnownSecret, KnownURL),
//     written as it is or in base64, percent-encoded or JSON-escaped.
//
// Scrubbing errs on the side of removing: a URL with '@' in its path loses
// the part before it.
func Scrub(s string) string {
	if s == "" {
		return s
	}
	s = scrubKnown(s)
	if strings.Contains(s, "://") {
		s = scrubUserinfo(s)
	}
	if strings.Contains(s, "@") {
		s = bareUserinfo.ReplaceAllString(s, "${1}REDACTED@")
	}
	if strings.ContainsAny(s, "=:") || strings.Contains(s, "--") || strings.Contains(s, " ") {
		s = assign.ReplaceAllStringFunc(s, func(m string) string {
			sub := assign.FindStringSubmatch(m)
			if !secretName(sub[2]) || sub[4] == "" || sub[4] == "REDACTED" {
				return m
			}
			return sub[1] + sub[2] + sub[3] + "REDACTED"
		})
		s = jsonPair.ReplaceAllStringFunc(s, func(m string) string {
			sub := jsonPair.FindStringSubmatch(m)
			if !secretName(sub[1]) {
				return m
			}
			return `"` + sub[1] + `"` + sub[2] + `"REDACTED"`
		})
		s = flagPair.ReplaceAllStringFunc(s, func(m string) string {
			sub := flagPair.FindStringSubmatch(m)
			if !secretName(sub[2]) || sub[4] == "REDACTED" {
				return m
			}
			return sub[1] + sub[2] + sub[3] + "REDACTED"
		})
	}
	s = authHeader.ReplaceAllString(s, "${1}REDACTED")
	s = bearer.ReplaceAllString(s, "${1}REDACTED")
	s = basic.ReplaceAllStringFunc(s, func(m string) string {
		sub := basic.FindStringSubmatch(m)
		if !basicCredentials(sub[2]) {
			return m
		}
		return sub[1] + "REDACTED"
	})
	return s
}

// basicCredentials reports whether x is a Basic-auth value: base64 of
// "user:password".
func basicCredentials(x string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(x); err == nil && bytes.IndexByte(b, ':') >= 0 {
			return true
		}
	}
	return false
}

var (
	// assign: NAME=VALUE after a start, a blank, '?', '&', ';', ',' or a
	// quote; VALUE runs to a separator.
	assign = regexp.MustCompile(`(^|[\s?&;,'"{(\[])(-{0,2}[A-Za-z][A-Za-z0-9_.-]*)(=)([^\s&;,'"#)}\]]*)`)
	// jsonPair: "NAME": "VALUE".
	jsonPair = regexp.MustCompile(`"([A-Za-z][A-Za-z0-9_.-]*)"(\s*:\s*)"(?:[^"\\]|\\.)*"`)
	// flagPair: --NAME VALUE (a flag and the next word).
	flagPair = regexp.MustCompile(`(^|[\s'"])(--?[A-Za-z][A-Za-z0-9_.-]*)(\s+'?)([^\s'"-][^\s'"]*)`)
	// bareUserinfo: USER:PASSWORD@ at a word's start (after a start, a
	// blank, a quote, '=', '(', '[' or ','), without a scheme.
	bareUserinfo = regexp.MustCompile(`(^|[\s'"=(\[,<])[^\s'"/@:<>]*:[^\s'"/<>]*@`)
	// authHeader: Authorization: X (to the end of the line or a quote).
	authHeader = regexp.MustCompile(`(?i)(\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?)[^"'\r\n,}]+`)
	// bearer: Bearer X.
	bearer = regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+`)
	// basic: Basic X (X checked to be base64 of user:password).
	basic = regexp.MustCompile(`(?i)(\bbasic\s+)([A-Za-z0-9+/]+=*)`)
)

// secretParts are the parts of a name that make its value a credential.
var secretParts = map[string]bool{
	"key": true, "apikey": true, "token": true, "secret": true, "password": true, "passwd": true,
	"pwd": true, "pass": true, "passphrase": true, "auth": true, "authorization": true,
	"credential": true, "credentials": true, "signature": true, "sig": true, "cookie": true,
	"session": true, "sessionid": true, "accesskey": true, "privatekey": true,
}

func secretName(name string) bool {
	name = strings.TrimLeft(name, "-")
	for _, p := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '_' || r == '-' || r == '.'
	}) {
		if secretParts[p] {
			return true
		}
	}
	return false
}

// scrubUserinfo replaces the userinfo of every URL in s: from "://" to the
// last '@' before the URL's query or fragment; when the authority (up to
// the first '/', '?' or '#') already looks like a user and password (it
// holds an '@', or a ':' not followed by a port), to the last '@' of the
// whole URL, so that a password holding '/', '?' or '#' goes too. A URL
// ends at a blank, a quote or '<', '>'.
func scrubUserinfo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i + 3
		b.WriteString(s[:start])
		rest := s[start:]
		end := strings.IndexAny(rest, " \t\r\n\"'`<>")
		if end < 0 {
			end = len(rest)
		}
		url := rest[:end]
		auth := url
		if j := strings.IndexAny(url, "/?#"); j >= 0 {
			auth = url[:j]
		}
		upto := url
		if !looksLikeUserinfo(auth) {
			if j := strings.IndexAny(url, "?#"); j >= 0 {
				upto = url[:j]
			}
		}
		if at := strings.LastIndexByte(upto, '@'); at >= 0 {
			b.WriteString("REDACTED")
			rest = rest[at:]
		}
		s = rest
	}
}

// looksLikeUserinfo reports whether the authority part of a URL holds
// credentials: an '@', or a ':' followed by something other than a port.
func looksLikeUserinfo(auth string) bool {
	if strings.Contains(auth, "@") {
		return true
	}
	c := strings.LastIndexByte(auth, ':')
	if c < 0 || strings.HasSuffix(auth, "]") {
		return false
	}
	for _, r := range auth[c+1:] {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

// Printable makes s safe to print on a terminal or into one line of a
// Markdown file: every control character (C0 such as ESC, BEL, CR and
// newline, DEL, and C1) and every byte that is not UTF-8 becomes a \xNN
// (or \u00NN) escape, so that a name holding an escape sequence cannot move
// the cursor, recolour the terminal or start a new line. A tab stays.
func Printable(s string) string {
	clean := true
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") || r != '\t' && unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r != '\t' && unicode.IsControl(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r != '\t' && unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// MarkdownCell is Printable(s) with '|' escaped, for a cell of a Markdown
// table.
func MarkdownCell(s string) string {
	return strings.ReplaceAll(Printable(s), "|", `\|`)
}
