//go:build !js

package browser

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
