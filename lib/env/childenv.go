package env

import "strings"

// childEnvNames are the environment variables an exec: child gets: what a
// program needs to find its interpreter, libraries, home, temporary folder
// and locale. Every other variable (API keys such as OPENAI_API_KEY, cloud
// credentials, tokens) stays with pats; PATS_EXEC_ENV names more to pass,
// separated by commas.
var childEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "TERM", "LANG", "LANGUAGE",
	"PYTHONPATH", "PYTHONHOME", "PYTHONUNBUFFERED", "VIRTUAL_ENV", "CONDA_PREFIX",
	"LD_LIBRARY_PATH", "GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE",
}

// ChildEnv returns the entries of environ (NAME=VALUE) an exec: child
// gets: those named in childEnvNames, the locale (LC_*), and those named
// in environ's PATS_EXEC_ENV (comma-separated), in environ's order.
func ChildEnv(environ []string) []string {
	allow := map[string]bool{}
	for _, n := range childEnvNames {
		allow[n] = true
	}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PATS_EXEC_ENV="); ok {
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					allow[n] = true
				}
			}
		}
	}
	out := []string{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if allow[name] || strings.HasPrefix(name, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}
