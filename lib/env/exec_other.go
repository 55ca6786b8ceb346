//go:build unix && !linux

package env

import (
	"os"
	"syscall"
)

// childAttr puts an exec: child in a process group of its own.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by p, and p itself.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}

// endGroupOnExit is a no-op here: without a wait that leaves the child
// unreaped, the group is killed after the child is reaped
// (endGroupAfterReap).
func endGroupOnExit(p *os.Process) {}

// endGroupAfterReap kills what is left of the reaped child's process
// group: the group's id stays reserved while any member remains, so the
// kill reaches the child's own processes or, with none left, nothing.
func endGroupAfterReap(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
