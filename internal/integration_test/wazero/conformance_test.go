//go:build !js

package wazero

// The conformance rows (moduletest.AllConformance) under wazero.

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestModule_Conformance plays every row in the real .wasm under wazero.
func TestModule_Conformance(t *testing.T) {
	for _, r := range moduletest.AllConformance() {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			t.Logf("checks %s", r.Section)
			if r.BrowserOnly {
				t.Skip("needs a real download with progress; Chromium plays it")
			}
			moduletest.RequireJSON(t, r.Want, moduletest.PlayModule(t, r.Setup, moduletest.Common+moduletest.ConformHelpers+r.JS))
		})
	}
}
