//go:build !js

package browser

// The hostile-server property test (internal/testing/chaos/hostile.go) in Chromium, page
// and worker mode.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/moduletest"
)

// TestBrowser_Hostile plays the hostile-server test in headless Chromium, with the module
// on the page and in a Worker: the page's real fetch (its own redirects and CORS) against
// the servers on their own origins. The module's memory and the fetches in flight are not
// read here (the wazero run bounds them); the console must hold no secret.
func TestBrowser_Hostile(t *testing.T) {
	sets, seeds, steps := moduletest.HostileConfig(t)
	if os.Getenv("HOSTILE_STEPS") == "" {
		steps = 8
	}
	if os.Getenv("HOSTILE_SEED") == "" {
		seeds = seeds[len(seeds)-1:] // the fresh seed: real time makes each cost 20 s a mode
	}
	b := browsertest.Shared(t)
	for _, acts := range sets {
		for _, seed := range seeds {
			for _, m := range moduletest.Modes {
				t.Run(strings.Join([]string{"acts=" + strings.Join(acts, "+"), fmt.Sprint(seed), m.Name}, "/"), func(t *testing.T) {
					hs := chaos.NewHostile(chaos.DefaultSecrets)
					model := httptest.NewServer(hs.Model())
					a := httptest.NewServer(hs.MCP("a"))
					bs := httptest.NewServer(hs.MCP("b"))
					elsewhere := httptest.NewServer(hs.Elsewhere())
					for _, s := range []*httptest.Server{model, a, bs, elsewhere} {
						t.Cleanup(func() { s.CloseClientConnections(); s.Close() })
					}
					hs.ElsewhereURL = elsewhere.URL
					base := browsertest.Serve(t, "", map[string]http.Handler{
						"/langmodel.wasm":  browsertest.File(moduletest.ModuleWasm),
						"/wasm_exec.js":    browsertest.File(browsertest.WasmExecJS(t)),
						"/js/":             http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
						"/js/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(t)),
						"/hostile.js":      browsertest.File("../../../internal/testing/chaos/hostile.js"),
					})
					p := b.Open(t, base+"/")
					forms, _ := json.Marshal(hs.Forms())
					secrets, _ := json.Marshal(hs.Secrets)
					actsJSON, _ := json.Marshal(acts)
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
					defer cancel()
					var rep struct {
						Violations []string       `json:"violations"`
						Counts     map[string]any `json:"counts"`
					}
					replay := fmt.Sprintf("HOSTILE_SEED=%d HOSTILE_ACTS=%s HOSTILE_STEPS=%d replays it", seed, strings.Join(acts, ","), steps)
					require.NoError(t, p.Eval(ctx, m.Prelude()+fmt.Sprintf(`
						const hostile = await import("/hostile.js");
						return await hostile.run(lm, { seed: %d, steps: %d, acts: %s, forms: %s, secrets: %s,
							urls: { model: %q, a: %q, b: %q } });`,
						seed, steps, actsJSON, forms, secrets, model.URL, a.URL, bs.URL), &rep), replay)
					t.Logf("seed %d, acts %v (%s): %v", seed, acts, m.Name, rep.Counts)
					for _, line := range p.Console() {
						for _, f := range chaos.Find(hs.Forms(), line) {
							rep.Violations = append(rep.Violations, fmt.Sprintf("secrets: %s (%s) in the console", f.Secret, f.Kind))
						}
					}
					require.Empty(t, rep.Violations, replay)
				})
			}
		}
	}
}
