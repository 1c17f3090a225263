//go:build js

package wasm

import (
	"time"

	"langmodel/internal/clock"
)

// The binding's tests under GOOS=js (make test-wasm-js) run without the module's main
// package, which lends the engine the page's timers (wasm/cmd/langmodel/timers.go): they
// lend it package time's, which a test may link.
func init() {
	clock.Install(func(d clock.Duration, fire func()) func() {
		t := time.AfterFunc(time.Duration(d), fire)
		return func() { t.Stop() }
	})
}
