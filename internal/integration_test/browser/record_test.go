//go:build !js

package browser

// The recording round trip (moduletest.RecordJS) in every engine, page and worker mode.

import (
	"testing"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

func TestBrowser_Recording(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := moduletest.Serve(t, "")
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				t.Parallel()
				moduletest.RequireJSON(t, moduletest.RecordWant, moduletest.PlayBrowser(t, b, base, m.Prelude(), moduletest.RecordJS))
			})
		}
	})
}
