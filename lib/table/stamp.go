package table

import (
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// Stamp is what every file a command writes says about where and when it
// was made: the toolkit's version and commit, the time (UTC, RFC 3339) and
// the host. It is stored as the metadata keys pats.toolkit_version,
// pats.toolkit_commit, pats.time and pats.host of every file written after
// SetStamp (the commands call it first, lib/command.Run); library callers
// that never call it write none of them.
//
// Byte-identical reruns: the time and the host are the only metadata that
// differ between two runs of the same command on the same inputs. A run
// with SOURCE_DATE_EPOCH set (seconds since 1970, the reproducible-builds
// convention) records that time instead of the clock's, and one with
// PATS_HOST set records that host name, so that such reruns are the same
// bytes.
type Stamp struct {
	Version string // the module version ("(devel)" for a build from a work tree)
	Commit  string // the VCS revision the binary was built from, "+modified" when the tree was dirty; "" unknown
	Time    string
	Host    string
}

var (
	stampMu  sync.RWMutex
	curStamp *Stamp
)

// SetStamp makes every later write carry s.
func SetStamp(s Stamp) {
	stampMu.Lock()
	defer stampMu.Unlock()
	curStamp = &s
}

// ClearStamp stops writes from carrying a stamp (tests).
func ClearStamp() {
	stampMu.Lock()
	defer stampMu.Unlock()
	curStamp = nil
}

// CurrentStamp is the stamp SetStamp set, or nil.
func CurrentStamp() *Stamp { return currentStamp() }

func currentStamp() *Stamp {
	stampMu.RLock()
	defer stampMu.RUnlock()
	return curStamp
}

// NowStamp is this process's stamp: the toolkit's version and commit from
// the binary's build information, the time now (or SOURCE_DATE_EPOCH) and
// the host name (or PATS_HOST).
func NowStamp() Stamp {
	v, c := Toolkit()
	t := time.Now().UTC()
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		if n, err := strconv.ParseInt(e, 10, 64); err == nil {
			t = time.Unix(n, 0).UTC()
		}
	}
	host := os.Getenv("PATS_HOST")
	if host == "" {
		host, _ = os.Hostname()
	}
	return Stamp{Version: v, Commit: c, Time: t.Format(time.RFC3339), Host: host}
}

// buildCommit is the commit the Makefile's builds set with -ldflags -X
// (git rev-parse HEAD, "+modified" when the tree had changes), for builds
// whose Go records no VCS revision (-buildvcs=false, a git worktree).
var buildCommit string

// Toolkit returns the toolkit's version and commit from the running
// binary's build information: the module version ("(devel)" for a build
// from a work tree) and the VCS revision, with "+modified" when the work
// tree had changes (else the commit the Makefile set at link time; ""
// when neither is known, as under go test).
func Toolkit() (version, commit string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", buildCommit
	}
	version = bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit != "" && modified {
		commit += "+modified"
	}
	if commit == "" {
		commit = buildCommit
	}
	return version, commit
}
