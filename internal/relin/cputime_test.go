//go:build !js

package relin

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time: on a shared machine, wall time per byte swings
// with the load, CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
