//go:build !js

// Package bench holds the module's benchmarks in the browser and under wazero (make
// bench's browser half, make soak): a closed-loop step, instantiation, stream throughput,
// snapshot restore, wllama's overhead, the soak. Performance is measured here, never by
// timed assertions in tests.
package bench

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite's tests (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }
