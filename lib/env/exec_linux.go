package env

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// endGroupOnExit waits until the child p has exited, without reaping it,
// and then kills what is left of its process group (the processes it
// started, one that ignores SIGTERM included). While the child is not
// reaped its id, which is the group's id, cannot be reused, so the kill
// reaches only the child's own group. The caller reaps the child after.
func endGroupOnExit(p *os.Process) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// endGroupAfterReap is endGroupOnExit's counterpart where the child could
// not be waited for unreaped; on Linux there is nothing left to do.
func endGroupAfterReap(p *os.Process) {}
