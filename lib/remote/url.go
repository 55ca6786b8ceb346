package remote

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/pats-rl/pats/lib/table"
)

// IsURL reports whether s names a server (an http:// or https:// URL)
// rather than a file, a folder or a name of the toolkit.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// CheckURL checks a server's base URL: http or https with a host and a
// port a server can listen on, no blanks, no query or fragment. Its
// message never repeats credentials written in the URL.
func CheckURL(s string) error {
	shown := table.Scrub(s)
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", shown)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: want an http:// or https:// URL", shown)
	case u.Host == "" || strings.ContainsAny(s, " \t\n"):
		return fmt.Errorf("%q: want a URL with a host and no blanks", shown)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%q: want the server's base URL, without a query or fragment", shown)
	}
	if err := CheckPort(u); err != nil {
		return fmt.Errorf("%q: %v", shown, err)
	}
	return nil
}
