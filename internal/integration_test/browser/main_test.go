//go:build !js

// Package browser plays the real module in headless Chromium, Firefox and WebKit
// (internal/testing/browsertest; BROWSERS= picks), with the module on the page and in a
// Worker: the scenario table and conformance rows the wazero suite plays, and what needs a
// browser (install and its errors, README's examples, engines, WebMCP, CSP, snapshot
// reloads). llama.cpp in the page has a suite of its own (internal/integration_test/llamacpp).
package browser

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite's tests (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }
