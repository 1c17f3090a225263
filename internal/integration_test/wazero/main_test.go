//go:build !js

// Package wazero plays the real module, built once by TestMain, under wazero with the real JS face in goja
// (internal/testing/jshost): the scenario table, the conformance rows, the chaos and
// hostile-server suites, MCP, snapshots and recordings. The browser and Node suites play
// the same tables (internal/testing/moduletest).
package wazero

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite's tests (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }
