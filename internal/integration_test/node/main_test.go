//go:build !js

// Package node plays the real module under Node through the package's node export
// (js/language-model.node.js): the scenario table, MCP against servers on both lines of
// the official TypeScript SDK, redirects, a Worker.
package node

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite's tests (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }
