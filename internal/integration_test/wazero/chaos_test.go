//go:build !js

package wazero

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/jshost"
	"langmodel/internal/testing/moduletest"
)

// The chaos suite (internal/testing/chaos, docs/testing.md) in the real module under the wazero host.
// make test plays a few fixed seeds; make chaos plays random ones, longer. A failure
// names its seed; CHAOS_SEED=<seed> replays it (the schedule exactly; timing between the
// page and the server is real time, so a race may need a few runs).

// TestModule_Chaos plays the chaos suite against the chaos server: after every step the
// page checks DESIGN.md's invariants (chaos.js); here the host's output must hold no
// unhandled rejection, no console error and no key, and every request that reached the
// server must carry the key in its Authorization header only.
func TestModule_Chaos(t *testing.T) {
	seeds, steps, _ := moduletest.ChaosConfig(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			steps := moduletest.ChaosSteps(seed, steps)
			srv := &chaos.Server{Key: moduletest.ChaosKey}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			var out, errOut lines
			h := chaosHost(t, &out, &errOut)
			// 16 KiB pieces: the server splits what matters (argument deltas a byte at a time,
			// call blocks a character at a time) itself, and a 20 MB answer read 61 bytes at a
			// time keeps goja busy for minutes (about 340,000 crossings).
			require.NoError(t, moduletest.InstallFetch(h, hs.Client(), 16<<10))
			t0 := time.Now()
			h.Set("trace", func(s string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), s) })
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			v, err := h.Eval(ctx, fmt.Sprintf(`
				const { run } = chaos;
				await lm.install({});
				return await run(lm, { seed: %d, steps: %d, key: %q, trace, baseURL: { usage: %q, plain: %q } });`,
				seed, steps, moduletest.ChaosKey, hs.URL+"/usage/v1", hs.URL+"/plain/v1"))
			require.NoError(t, err, "seed %d: CHAOS_SEED=%d replays it", seed, seed)
			var rep moduletest.ChaosReport
			b, _ := json.Marshal(v)
			require.NoError(t, json.Unmarshal(b, &rep))
			t.Logf("seed %d: %v", seed, rep.Counts)
			n, faults := srv.Requests()
			require.Empty(t, rep.Violations, "seed %d (CHAOS_SEED=%d replays it)", seed, seed)
			require.Empty(t, faults, "requests the server saw (seed %d)", seed)
			require.Positive(t, n)
			for name, s := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
				require.NotContains(t, s, moduletest.ChaosKey, "the key in the host's %s (seed %d)", name, seed)
			}
			require.Empty(t, errOut.String(), "console errors or unhandled rejections (seed %d)", seed)
			code, exited := h.Exited()
			require.False(t, exited, "the module exited with %d (seed %d)", code, seed)
		})
	}
}

// chaosHost is faceHost with the host's output also kept (nil: only logged), and chaos.js
// loaded as the global chaos.
func chaosHost(t *testing.T, stdout, stderr *lines) *jshost.Host {
	t.Helper()
	wasmBytes, err := os.ReadFile(moduletest.ModuleWasm)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	h, err := jshost.New(ctx, wasmBytes, jshost.Config{
		Stdout: jshost.LogWriter(stdout.keep(t)),
		Stderr: jshost.LogWriter(stderr.keep(t)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	moduletest.StartedPort(t, h)
	ns, err := h.LoadModule(moduletest.FaceJS)
	require.NoError(t, err)
	h.Set("lm", ns)
	cj, err := h.LoadModule("../../../internal/testing/chaos/chaos.js")
	require.NoError(t, err)
	h.Set("chaos", cj)
	return h
}

// lines keeps what a host printed, line by line, for the test to read.
type lines struct {
	mu sync.Mutex
	s  []string
}

// keep returns a logf for jshost.LogWriter that logs each line and keeps it (l may be nil).
func (l *lines) keep(t *testing.T) func(string, ...any) {
	return func(format string, args ...any) {
		t.Logf(format, args...)
		if l != nil {
			l.mu.Lock()
			l.s = append(l.s, fmt.Sprintf(format, args...))
			l.mu.Unlock()
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.s, "\n")
}

// TestModule_AbortWhileWaiting: a prompt aborted while the engine waits (on a stalled
// stream, a hanging tool, a retry's backoff) rejects with the signal's own reason,
// although the engine's AbortError reply arrives within the abort itself; the history is
// as before. Found by the chaos suite (seed 1).
func TestModule_AbortWhileWaiting(t *testing.T) {
	srv := &chaos.Server{Key: moduletest.ChaosKey}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	h := chaosHost(t, nil, nil)
	// 16 KiB pieces: the server splits what matters (argument deltas a byte at a time,
	// call blocks a character at a time) itself, and a 20 MB answer read 61 bytes at a
	// time keeps goja busy for minutes (about 340,000 crossings).
	require.NoError(t, moduletest.InstallFetch(h, hs.Client(), 16<<10))
	h.Set("BASE", hs.URL+"/plain/v1")
	h.Set("KEY", moduletest.ChaosKey)
	for _, tc := range []struct{ name, spec string }{
		{"a stalled stream", "stall"},
		{"a hanging tool", "call:hang"},
		{"a retry's backoff", "503+503+503+text"},
		{"the second step's request", "call:ok|stall"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := h.Eval(t.Context(), `
				await lm.install({});
				const s = await lm.LanguageModel.create({ backend: { kind: "openai", baseURL: BASE, model: "m", apiKey: KEY },
					tools: [{ name: "ok", description: "d", inputSchema: { type: "object" }, execute: () => "fine" },
						{ name: "hang", description: "d", inputSchema: { type: "object" }, execute: (a, ctx) => new Promise((_, no) => ctx.signal.addEventListener("abort", () => no(ctx.signal.reason))) }] });
				await s.prompt("first: chaos[text]");
				const before = JSON.stringify(s.history), usage = s.contextUsage;
				const ac = new AbortController(), reason = new Error("the page gave up");
				const p = s.prompt("chaos[`+tc.spec+`]", { signal: ac.signal });
				setTimeout(() => ac.abort(reason), 30);
				let got;
				try { await p; got = "answered"; } catch (e) { got = e === reason ? "the signal's reason" : e.name + ": " + e.message; }
				return { got, same: JSON.stringify(s.history) === before && s.contextUsage === usage };`)
			require.NoError(t, err)
			moduletest.RequireJSON(t, `{"got":"the signal's reason","same":true}`, v)
		})
	}
}
