package env

import (
	"os"
	"syscall"
)

// childAttr puts an exec: child in a process group of its own and has the
// kernel kill it when the thread that started it dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group led by p, and p itself.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}
