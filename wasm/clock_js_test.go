//go:build js

package wasm

// The binding's tests under GOOS=js (make test-wasm-js) run without the module's main
// package, which lends the engine the page's timers: they take package time's.
import _ "langmodel/internal/clock/clocktest"
