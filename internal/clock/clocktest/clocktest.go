// Package clocktest lends package clock package time's timers, for the tests of packages
// that run under GOOS=js without the module's main package, which lends the engine the
// page's setTimeout (wasm/cmd/langmodel/timers.go): make test-js and make test-wasm-js.
// Importing it is all it takes; a test may link package time, the module may not.
package clocktest

import (
	"time"

	"langmodel/internal/clock"
)

func init() {
	clock.Install(func(d clock.Duration, fire func()) func() {
		t := time.AfterFunc(time.Duration(d), fire)
		return func() { t.Stop() }
	})
}
