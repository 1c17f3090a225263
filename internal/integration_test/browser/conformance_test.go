//go:build !js

package browser

// The conformance rows (moduletest.AllConformance) in every engine, page and worker mode.

import (
	"testing"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// TestBrowser_Conformance plays every row in every engine $BROWSERS selects, with the
// module on the page and in a Worker; rows that install nothing of their own share a few
// pages, as TestBrowser_Scenarios's do.
func TestBrowser_Conformance(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				base := moduletest.Serve(t, "") // a replay server per mode: rows count requests by nonce
				pages := b.NewPool(t, base+"/", m.Prelude())
				for _, r := range moduletest.AllConformance() {
					t.Run(r.Name, func(t *testing.T) {
						t.Parallel()
						t.Logf("checks %s", r.Section)
						if r.Setup == "" && !r.BrowserOnly {
							moduletest.RequireJSON(t, r.Want, moduletest.PlayPooled(t, pages, moduletest.Common+moduletest.ConformHelpers+r.JS))
							return
						}
						prelude := r.Setup + m.Prelude()
						if r.BrowserOnly { // the row installs the module itself
							prelude = r.Setup + "globalThis.LLM = location.origin;\n" + m.Face
						}
						moduletest.RequireJSON(t, r.Want, moduletest.PlayBrowser(t, b, base, prelude, moduletest.Common+moduletest.ConformHelpers+r.JS))
					})
				}
			})
		}
	})
}
