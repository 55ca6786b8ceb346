package report

import (
	"os"
	"path/filepath"

	"github.com/pats-rl/pats/lib/command"
	"github.com/pats-rl/pats/lib/output"
)

// checkPlotsDir refuses the folder report plots writes into (dir) when it
// is a symbolic link, is not a folder, holds a symbolic link (a run
// unpacked from an archive can point anywhere: nothing is written through
// a link), or lies in a folder the run (or the sweep) reads: any folder
// of run's but its plots folder (-o RUN/eval would put PNG files
// among the evaluations the run's reports read).
func checkPlotsDir(run, dir string) error {
	if fi, err := os.Lstat(dir); err == nil {
		if fi.Mode()&os.ModeSymlink != 0 {
			return command.Usagef("-o %s is a symbolic link; plots are written into a folder, not through a link: name the folder itself", dir)
		}
		if !fi.IsDir() {
			return command.Usagef("-o %s is not a folder but %s", dir, output.FileKind(fi.Mode()))
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return command.Usagef("-o %s: %v", dir, err)
		}
		for _, e := range ents {
			if e.Type()&os.ModeSymlink != 0 {
				return command.Usagef("-o %s holds the symbolic link %s; plots are not written through links: remove it or name another folder", dir, e.Name())
			}
		}
	}
	var reads []string
	if ents, err := os.ReadDir(run); err == nil {
		for _, e := range ents {
			if e.IsDir() && e.Name() != "plots" {
				reads = append(reads, filepath.Join(run, e.Name()))
			}
		}
	}
	return output.Check(reads, output.File("-o", filepath.Join(dir, "success.png")))
}
