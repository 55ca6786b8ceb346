// Package remotetest holds what the tests of server exchanges share: a
// hostile server on 127.0.0.1 and a client that counts what it reads of
// the answers. Only tests import it.
package remotetest

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
)

// Hostile starts a server on 127.0.0.1 that answers with h, closed when
// the test ends.
func Hostile(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// CountingClient is a client that adds to n every byte it reads of an
// answer's body.
func CountingClient(n *atomic.Int64) *http.Client {
	return &http.Client{Transport: countingTransport{n}}
}

type countingTransport struct{ n *atomic.Int64 }

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = countingBody{resp.Body, c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	k, err := c.ReadCloser.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// Endless writes prefix, then fill over and over until the client goes
// away: an answer that never ends.
func Endless(w io.Writer, prefix, fill string) {
	io.WriteString(w, prefix)
	chunk := []byte(fill)
	for len(chunk) < 4096 {
		chunk = append(chunk, fill...)
	}
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// Forms are the ways a server may write secret back that no message or
// file may show: as it is, base64 (standard and URL alphabets, padded or
// not) and percent-encoded.
func Forms(secret string) []string {
	b := []byte(secret)
	return []string{secret, base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b), url.QueryEscape(secret)}
}
