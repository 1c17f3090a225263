//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/jshost"
)

// The chaos suite (internal/testing/chaos, docs/testing.md) in the real module under the wazero host.
// make test plays a few fixed seeds; make chaos plays random ones, longer. A failure
// names its seed; CHAOS_SEED=<seed> replays it (the schedule exactly; timing between the
// page and the server is real time, so a race may need a few runs).

const chaosKey = "sk-chaos-7f3a9c1e5b2d4086"

// chaosFixed are the seeds every run plays without CHAOS_SEED, each with the steps it
// needs at least: 1 and 2, and 3795455276, whose step 54 (closed loop, text protocol,
// maxToolCalls 3: call:nosuch|502ra+502ra+503+dup2:ok|text) made the server answer the
// text protocol's repair round with the next step of the plan, so the loop saw four
// calls where the page counted three; and 4007065555, whose step 9 (closed,
// onLimit "error": call2:slow|dup2:slow|text) asks for one call four times, which
// maxRepeatedCalls' default stops, where the page expected an answer.
var chaosFixed = []struct {
	seed  uint32
	steps int
}{{1, 0}, {2, 0}, {3795455276, 55}, {4007065555, 0}}

// chaosSteps is how many steps seed plays: steps, or more for a fixed seed that needs them.
func chaosSteps(seed uint32, steps int) int {
	for _, f := range chaosFixed {
		if f.seed == seed {
			return max(steps, f.steps)
		}
	}
	return steps
}

// chaosConfig reads CHAOS_SEED (comma-separated seeds, or "random"), CHAOS_RUNS (how many
// random seeds) and CHAOS_STEPS. Without CHAOS_SEED it plays the fixed seeds (chaosFixed)
// and the fresh ones make test draws (CHAOS_FRESH, comma-separated), so that every run also
// looks where no run has looked (that is how the worker-mode races were found); fresh is how many of seeds those are.
func chaosConfig(t *testing.T) (seeds []uint32, steps, fresh int) {
	steps = 40
	if s := os.Getenv("CHAOS_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "CHAOS_STEPS")
		steps = n
	}
	switch env := os.Getenv("CHAOS_SEED"); env {
	case "":
		for _, f := range chaosFixed {
			seeds = append(seeds, f.seed)
		}
		for _, f := range strings.Split(os.Getenv("CHAOS_FRESH"), ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.ParseUint(f, 10, 32)
			require.NoError(t, err, "CHAOS_FRESH")
			seeds = append(seeds, uint32(n))
			fresh++
		}
		return seeds, steps, fresh
	case "random":
		runs := 8
		if s := os.Getenv("CHAOS_RUNS"); s != "" {
			n, err := strconv.Atoi(s)
			require.NoError(t, err, "CHAOS_RUNS")
			runs = n
		}
		base := uint32(time.Now().UnixNano())
		for i := range runs {
			seeds = append(seeds, base+uint32(i)*2654435761)
		}
		return seeds, steps, 0
	default:
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
			require.NoError(t, err, "CHAOS_SEED")
			seeds = append(seeds, uint32(n))
		}
		return seeds, steps, 0
	}
}

// chaosReport is what chaos.js's run() returns.
type chaosReport struct {
	Violations []string       `json:"violations"`
	Counts     map[string]any `json:"counts"`
	// Sequence is, in worker mode, the order in which the page saw the module's messages
	// (sequence.js): what CHAOS_REPLAY reads back.
	Sequence jsonv.RawMessage `json:"sequence"`
	// Diverged says where a replay could not follow its recording (a step that went
	// otherwise): those steps ran free.
	Diverged string `json:"diverged"`
}

// TestModule_Chaos plays the chaos suite against the chaos server: after every step the
// page checks DESIGN.md's invariants (chaos.js); here the host's output must hold no
// unhandled rejection, no console error and no key, and every request that reached the
// server must carry the key in its Authorization header only.
func TestModule_Chaos(t *testing.T) {
	seeds, steps, _ := chaosConfig(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			steps := chaosSteps(seed, steps)
			srv := &chaos.Server{Key: chaosKey}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			var out, errOut lines
			h := chaosHost(t, &out, &errOut)
			// 16 KiB pieces: the server splits what matters (argument deltas a byte at a time,
			// call blocks a character at a time) itself, and a 20 MB answer read 61 bytes at a
			// time keeps goja busy for minutes (about 340,000 crossings).
			require.NoError(t, installFetch(h, hs.Client(), 16<<10))
			t0 := time.Now()
			h.Set("trace", func(s string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), s) })
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			v, err := h.Eval(ctx, fmt.Sprintf(`
				const { run } = chaos;
				await lm.install({});
				return await run(lm, { seed: %d, steps: %d, key: %q, trace, baseURL: { usage: %q, plain: %q } });`,
				seed, steps, chaosKey, hs.URL+"/usage/v1", hs.URL+"/plain/v1"))
			require.NoError(t, err, "seed %d: CHAOS_SEED=%d replays it", seed, seed)
			var rep chaosReport
			b, _ := json.Marshal(v)
			require.NoError(t, json.Unmarshal(b, &rep))
			t.Logf("seed %d: %v", seed, rep.Counts)
			n, faults := srv.Requests()
			require.Empty(t, rep.Violations, "seed %d (CHAOS_SEED=%d replays it)", seed, seed)
			require.Empty(t, faults, "requests the server saw (seed %d)", seed)
			require.Positive(t, n)
			for name, s := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
				require.NotContains(t, s, chaosKey, "the key in the host's %s (seed %d)", name, seed)
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
	wasmBytes, err := os.ReadFile(moduleWasm)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	h, err := jshost.New(ctx, wasmBytes, jshost.Config{
		Stdout: jshost.LogWriter(stdout.keep(t)),
		Stderr: jshost.LogWriter(stderr.keep(t)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	startedPort(t, h)
	ns, err := h.LoadModule(faceJS)
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
	srv := &chaos.Server{Key: chaosKey}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	h := chaosHost(t, nil, nil)
	// 16 KiB pieces: the server splits what matters (argument deltas a byte at a time,
	// call blocks a character at a time) itself, and a 20 MB answer read 61 bytes at a
	// time keeps goja busy for minutes (about 340,000 crossings).
	require.NoError(t, installFetch(h, hs.Client(), 16<<10))
	h.Set("BASE", hs.URL+"/plain/v1")
	h.Set("KEY", chaosKey)
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
			requireJSON(t, `{"got":"the signal's reason","same":true}`, v)
		})
	}
}

// TestBrowser_Chaos plays the chaos suite in headless Chromium, with the module on the
// page and in a Worker: the page's real fetch
// against the chaos server on the page's origin, real time (retry backoffs included), so
// it plays fewer steps (CHAOS_STEPS sets them; make chaos plays more). The page's console
// must hold no error but the browser's own reports of the server's error statuses and
// dropped streams, no unhandled rejection, and no key.
func TestBrowser_Chaos(t *testing.T) {
	seeds, steps, fresh := chaosConfig(t)
	if os.Getenv("CHAOS_STEPS") == "" {
		steps = 20
	}
	if os.Getenv("CHAOS_SEED") == "" {
		// seed 1, and the first fresh seed: real time makes each cost half a minute a mode
		seeds = append(seeds[:1], seeds[len(seeds)-fresh:][:min(fresh, 1)]...)
	}
	b := browsertest.Shared(t)
	for _, seed := range seeds {
		for _, m := range modes {
			t.Run(fmt.Sprint(seed)+"/"+m.name, func(t *testing.T) { browserChaos(t, b, seed, steps, m) })
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
func browserChaos(t *testing.T, b *browsertest.Browser, seed uint32, steps int, m mode) {
	srv := &chaos.Server{Key: chaosKey}
	base := browsertest.Serve(t, "", map[string]http.Handler{
		"/langmodel.wasm":  browsertest.File(moduleWasm),
		"/wasm_exec.js":    browsertest.File(browsertest.WasmExecJS(t)),
		"/js/":             http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
		"/js/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(t)), // worker mode imports it beside the face
		"/chaos.js":        browsertest.File("../../../internal/testing/chaos/chaos.js"),
		"/sequence.js":     browsertest.File("../../../internal/testing/chaos/sequence.js"),
		"/usage/v1/":       srv,
		"/plain/v1/":       srv,
	})
	p := b.Open(t, base+"/")
	var rep chaosReport
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute) // steps run in real time
	defer cancel()
	prelude, replay := m.prelude(), "null"
	if m.name == "worker" {
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
				return r;`, seed, steps, chaosKey), &rep), "seed %d: CHAOS_SEED=%d replays it", seed, seed)
	t.Logf("seed %d: %v", seed, rep.Counts)
	if rep.Diverged != "" {
		t.Logf("the replay could not follow its recording: %s", rep.Diverged)
	}
	replays := fmt.Sprintf("CHAOS_SEED=%d replays its schedule", seed)
	if rep.Sequence != nil && (len(rep.Violations) > 0 || os.Getenv("CHAOS_RECORD") != "") {
		f := filepath.Join(os.TempDir(), fmt.Sprintf("chaos-%d-worker.json", seed))
		require.NoError(t, os.WriteFile(f, rep.Sequence, 0o644))
		t.Logf("the order the page saw: %s", f)
		replays = fmt.Sprintf("CHAOS_REPLAY=%s CHAOS_SEED=%d CHAOS_STEPS=%d go test -count=1 -run 'TestBrowser_Chaos/%d/worker' ./wasm/cmd/langmodel/ replays it in the order the page saw", f, seed, steps, seed)
	}
	require.Empty(t, rep.Violations, "seed %d (%s)", seed, replays)
	_, faults := srv.Requests()
	require.Empty(t, faults, "requests the server saw (seed %d)", seed)
	for _, line := range p.Console() {
		require.NotContains(t, line, chaosKey, "the key in the console (seed %d)", seed)
		if strings.HasPrefix(line, "error: Failed to load resource") {
			continue // the browser's own report of a status >= 400 or a dropped stream
		}
		require.False(t, strings.HasPrefix(line, "error") || strings.HasPrefix(line, "exception"), "console (seed %d): %s", seed, line)
	}
}
