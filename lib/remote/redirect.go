package remote

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// MaxRedirects is how many redirects within one server a request follows.
const MaxRedirects = 5

// RedirectError is a redirect that was refused: to another scheme, host
// or port (what the run records would no longer name the server that
// answers), or past MaxRedirects.
type RedirectError struct {
	From, To string // the URLs, without their user and password
	Reason   string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirected from %s to %s: refused (%s)", e.From, e.To, e.Reason)
}

// IsRedirect reports whether err is (or wraps) a refused redirect.
func IsRedirect(err error) bool {
	var r *RedirectError
	return errors.As(err, &r)
}

// AsRedirect returns the refused redirect err wraps, if any.
func AsRedirect(err error) (*RedirectError, bool) {
	var r *RedirectError
	ok := errors.As(err, &r)
	return r, ok
}

// Client returns a copy of c (nil: a plain client) that follows a
// redirect only within the scheme, host and port of the request's first
// URL, and never with credentials: the Authorization header and the URL's
// user and password are dropped from every redirected request, so a
// server that needs them must be named by the URL that answers. Any other
// redirect fails the request with a RedirectError.
func Client(c *http.Client) *http.Client {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	cc.CheckRedirect = checkRedirect
	return &cc
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	first, prev := via[0].URL, via[len(via)-1].URL
	switch {
	case req.URL.Scheme != first.Scheme || origin(req.URL) != origin(first):
		return &RedirectError{From: Shown(prev), To: Shown(req.URL), Reason: "it changes the scheme, host or port"}
	case len(via) > MaxRedirects:
		return &RedirectError{From: Shown(prev), To: Shown(req.URL), Reason: fmt.Sprintf("more than %d redirects", MaxRedirects)}
	}
	for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
		req.Header.Del(h)
	}
	req.URL.User = nil
	return nil
}

// origin is u's host and port, the scheme's port when none is written.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// Shown is u without its user and password.
func Shown(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// CheckPort refuses a port written in a URL that no server can listen on
// (outside 1 to 65535), which would otherwise fail only on connecting.
func CheckPort(u *url.URL) error {
	p := u.Port()
	if p == "" {
		return nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %s: want a port from 1 to 65535", p)
	}
	return nil
}
