//go:build js

package mcp

// The MCP client's tests under GOOS=js (make test-js) run without the module's main
// package, which lends the engine the page's timers: they take package time's.
import _ "langmodel/internal/clock/clocktest"
