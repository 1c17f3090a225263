//go:build !js

package browser

// The chaos suite (internal/testing/chaos) in headless Chromium, page and worker mode.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/moduletest"
)

// TestBrowser_Chaos plays the chaos suite in headless Chromium, with the module on the
// page and in a Worker: the page's real fetch
// against the chaos server on the page's origin, real time (retry backoffs included), so
// it plays fewer steps (CHAOS_STEPS sets them; make chaos plays more). The page's console
// must hold no error but the browser's own reports of the server's error statuses and
// dropped streams, no unhandled rejection, and no key.
func TestBrowser_Chaos(t *testing.T) {
	seeds, steps, fresh := moduletest.ChaosConfig(t)
	if os.Getenv("CHAOS_STEPS") == "" {
		steps = 20
	}
	if os.Getenv("CHAOS_SEED") == "" {
		// seed 1, and the first fresh seed: real time makes each cost half a minute a mode
		seeds = append(seeds[:1], seeds[len(seeds)-fresh:][:min(fresh, 1)]...)
	}
	b := browsertest.Shared(t)
	for _, seed := range seeds {
		for _, m := range moduletest.Modes {
			t.Run(fmt.Sprint(seed)+"/"+m.Name, func(t *testing.T) { browserChaos(t, b, seed, steps, m) })
		}
	}
}

// chaosWorker is worker mode's prelude for the chaos suite: the module in a Worker, as
// install({worker: true}) starts it (mirror.js), with the port sequenced (sequence.js):
// the order in which the page saw the module's messages is recorded, or, given a
// recording (CHAOS_REPLAY), replayed.
const chaosWorker = `globalThis.LLM = location.origin;
const { startWorker } = await import("/js/mirror.js");
const { sequenced } = await import("/sequence.js");
const { port } = await startWorker({ wasm: "/langmodel.wasm" }, { update() {} });
globalThis.seq = sequenced(port, REPLAY);
globalThis.__langmodel_channel = seq.port;
globalThis.lm = await import("/js/language-model.js");
await lm.install({});
`

// browserChaos plays one seed of the chaos suite in mode m. In worker mode a failure
// writes the order of what the page saw to a file and names the command that replays it
// with that order (CHAOS_REPLAY), which a seed alone does not in worker mode (TestModule_RemoteRaces).
func browserChaos(t *testing.T, b *browsertest.Browser, seed uint32, steps int, m moduletest.Mode) {
	srv := &chaos.Server{Key: moduletest.ChaosKey}
	base := browsertest.Serve(t, "", map[string]http.Handler{
		"/langmodel.wasm":  browsertest.File(moduletest.ModuleWasm),
		"/wasm_exec.js":    browsertest.File(browsertest.WasmExecJS(t)),
		"/js/":             http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
		"/js/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(t)), // worker mode imports it beside the face
		"/chaos.js":        browsertest.File("../../../internal/testing/chaos/chaos.js"),
		"/sequence.js":     browsertest.File("../../../internal/testing/chaos/sequence.js"),
		"/usage/v1/":       srv,
		"/plain/v1/":       srv,
	})
	p := b.Open(t, base+"/")
	var rep moduletest.ChaosReport
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute) // steps run in real time
	defer cancel()
	prelude, replay := m.Prelude(), "null"
	if m.Name == "worker" {
		if f := os.Getenv("CHAOS_REPLAY"); f != "" {
			rec, err := os.ReadFile(f)
			require.NoError(t, err, "CHAOS_REPLAY")
			replay = string(rec)
		}
		prelude = "const REPLAY = " + replay + ";\n" + chaosWorker
	}
	require.NoError(t, p.Eval(ctx, prelude+fmt.Sprintf(`
				globalThis.unhandled = [];
				addEventListener("unhandledrejection", (e) => unhandled.push(String(e.reason?.name) + ": " + String(e.reason?.message ?? e.reason)));
				const { run } = await import("/chaos.js");
				const r = await run(lm, { seed: %d, steps: %d, key: %q, seq: globalThis.seq, baseURL: { usage: location.origin + "/usage/v1", plain: location.origin + "/plain/v1" } });
				await new Promise((res) => setTimeout(res, 50));
				r.violations.push(...unhandled.map((u) => "unhandled rejection: " + u));
				return r;`, seed, steps, moduletest.ChaosKey), &rep), "seed %d: CHAOS_SEED=%d replays it", seed, seed)
	t.Logf("seed %d: %v", seed, rep.Counts)
	if rep.Diverged != "" {
		t.Logf("the replay could not follow its recording: %s", rep.Diverged)
	}
	replays := fmt.Sprintf("CHAOS_SEED=%d replays its schedule", seed)
	if rep.Sequence != nil && (len(rep.Violations) > 0 || os.Getenv("CHAOS_RECORD") != "") {
		f := filepath.Join(os.TempDir(), fmt.Sprintf("chaos-%d-worker.json", seed))
		require.NoError(t, os.WriteFile(f, rep.Sequence, 0o644))
		t.Logf("the order the page saw: %s", f)
		replays = fmt.Sprintf("CHAOS_REPLAY=%s CHAOS_SEED=%d CHAOS_STEPS=%d go test -count=1 -run 'TestBrowser_Chaos/%d/worker' ./internal/integration_test/browser/ replays it in the order the page saw", f, seed, steps, seed)
	}
	require.Empty(t, rep.Violations, "seed %d (%s)", seed, replays)
	_, faults := srv.Requests()
	require.Empty(t, faults, "requests the server saw (seed %d)", seed)
	for _, line := range p.Console() {
		require.NotContains(t, line, moduletest.ChaosKey, "the key in the console (seed %d)", seed)
		if strings.HasPrefix(line, "error: Failed to load resource") {
			continue // the browser's own report of a status >= 400 or a dropped stream
		}
		require.False(t, strings.HasPrefix(line, "error") || strings.HasPrefix(line, "exception"), "console (seed %d): %s", seed, line)
	}
}
