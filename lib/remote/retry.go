package remote

import (
	"context"
	"net/http"
	"time"
)

// RetryStatus reports whether an answer with this HTTP status may pass on
// a later try: 429 (too many requests), 502, 503 and 504 (a gateway or a
// server that is starting, overloaded or restarting). Any other status is
// the server's last word.
func RetryStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Sleep waits d or until ctx ends, whichever comes first, and returns
// ctx's error in the second case.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Retry calls try up to 1+retries times, waiting backoff before the
// second call and twice the previous wait before each next one, while try
// says its failure may pass (retry) and ctx has not ended. It returns nil
// on the first success, try's error when try says not to retry, and
// otherwise the last error with the number of tries made (tries). A
// cancelled ctx ends the wait at once and returns ctx's error.
func Retry(ctx context.Context, retries int, backoff time.Duration, try func(ctx context.Context) (retry bool, err error)) (tries int, err error) {
	wait := backoff
	for tries = 1; ; tries++ {
		if err := ctx.Err(); err != nil {
			return tries - 1, err
		}
		retry, err := try(ctx)
		if err == nil || !retry || tries > retries {
			return tries, err
		}
		if cerr := Sleep(ctx, wait); cerr != nil {
			return tries, cerr
		}
		wait *= 2
	}
}
