//go:build js

package clock

import _ "unsafe" // for go:linkname

// nanotime is the runtime's monotonic clock (performance.now() through wasm_exec.js),
// read without a call through syscall/js. The runtime keeps this name for packages
// outside the standard library (go.dev/issue/67401: "Do not remove or change the type
// signature").
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// walltime is package time's time.now, which the runtime provides under that name for
// the same packages (go.dev/issue/67401).
//
//go:linkname walltime time.now
func walltime() (sec int64, nsec int32, mono int64)

// Now is the time since the module started, by the monotonic clock.
func Now() Duration { return Duration(nanotime()) }

// Unix is the wall clock in seconds since 1970 UTC.
func Unix() int64 {
	sec, _, _ := walltime()
	return sec
}

// defaultSchedule is what runs when the host installed no timers: a program error, said
// plainly rather than a timer that never fires.
func defaultSchedule(Duration, func()) func() {
	panic("clock: no timers: the host must call clock.Install (wasm/cmd/langmodel installs the page's setTimeout)")
}
