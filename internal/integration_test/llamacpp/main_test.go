//go:build !js

// Package llamacpp plays the module over real llama.cpp in the page (wllama 3.13.0, served
// by internal/testing/browsertest) with the project's toy GGUF models
// (internal/testing/toygguf), in headless Chromium, Firefox and WebKit: the engine
// backend over a page's own wllama, with the module on the page and in a Worker, and
// every model family's chat template and call syntax through the gguf backend. The gguf
// backend's own tests are internal/integration_test/gguf's. Suites of their own because
// llama.cpp's wasm is the slowest thing the browsers run, WebKit's the most: go test runs
// them beside the browser suite.
package llamacpp

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite's tests (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }
