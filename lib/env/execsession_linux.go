package env

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// endSession kills every process of this user that carries SessionVar
// with the value marker in its environment (what an exec: child started,
// whatever process group or session it moved to), a few rounds while new
// ones appear (one may fork while it is found).
func endSession(marker string) {
	if marker == "" {
		return
	}
	want := []byte(SessionVar + "=" + marker + "\x00")
	self := os.Getpid()
	for round := 0; round < 5; round++ {
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, d := range ents {
			pid, err := strconv.Atoi(d.Name())
			if err != nil || pid == self {
				continue
			}
			b, err := os.ReadFile("/proc/" + d.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, b...), append([]byte{0}, want...)) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found = true
			}
		}
		if !found {
			return
		}
	}
}
