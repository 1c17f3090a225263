//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/chaos"
)

// hostileOn are the hostile acts (internal/testing/chaos/hostile.go) TestModule_Hostile plays
// unless HOSTILE_ACTS names others: those the module holds against, every one since
// the trust work's fixes (docs/security.md; they failed on e75d67b):
//
//	swap      approval: b's destructive wipe ran as b__wipe, approved as a's read-only one
//	flip      approval: a's note ran destructive under the yes given to it read-only
//	echo      secrets: a server's echo of a secret in results, descriptions, progress,
//	          errors, and the model's errors, reached the history, events, errors,
//	          snapshot, recording and model request bodies
//	query     secrets: a token in an MCP URL's query reached errors
//	flood     bounds: list_changed re-listed without bound
//	oversize  bounds: events and tools/list pages without a total bound; an event over
//	          the limit read to its end
//	redirect  origins: a 307 was followed to another origin
//	stall     (held already: a stalled server or model times out or is aborted)
//
// and those of the redactor's decoding, whole-output cleaning, MCP's consent defaults,
// names by position, server text as data and the bound on a whole call (they failed on
// edebb56):
//
//	reencode     secrets: an echo \u-escaped byte by byte, with \/, percent-encoded byte
//	             by byte, in MIME base64 or in JSON in a string reached the page and the model
//	idname       secrets: the apiKey as a call's id or tool name reached the history and
//	             snapshot()
//	unannotated  approval: a tool without annotations ran without approve
//	squat        names: b's a__note made create() fail (and, re-listed, took a's name)
//	forge        forge: a description made a tool_result block in the system prompt
//	endless      bounds: a tools/call answered by progress alone never ended
var hostileOn = chaos.Acts

// hostileConfig reads HOSTILE_ACTS (comma-separated; "all"; "each": every act alone, a
// run each; "none"), HOSTILE_SEED (seeds, comma-separated) and HOSTILE_STEPS. Without
// HOSTILE_SEED it plays seed 1 and one fresh seed, named in the failure.
func hostileConfig(t *testing.T) (sets [][]string, seeds []uint32, steps int) {
	sets = [][]string{hostileOn}
	switch env := os.Getenv("HOSTILE_ACTS"); env {
	case "":
	case "all":
		sets = [][]string{chaos.Acts}
	case "each":
		sets = nil
		for _, a := range chaos.Acts {
			sets = append(sets, []string{a})
		}
	case "none":
		sets = [][]string{{}}
	default:
		var acts []string
		for _, a := range strings.Split(env, ",") {
			a = strings.TrimSpace(a)
			require.Contains(t, chaos.Acts, a, "HOSTILE_ACTS")
			acts = append(acts, a)
		}
		sets = [][]string{acts}
	}
	steps = 12
	if s := os.Getenv("HOSTILE_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "HOSTILE_STEPS")
		steps = n
	}
	if env := os.Getenv("HOSTILE_SEED"); env != "" {
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
			require.NoError(t, err, "HOSTILE_SEED")
			seeds = append(seeds, uint32(n))
		}
		return sets, seeds, steps
	}
	return sets, []uint32{1, uint32(time.Now().UnixNano())}, steps
}

// inflight counts the requests of a client that are out (sent, body not yet closed) and
// the most there were at once.
type inflight struct {
	http.RoundTripper
	mu       sync.Mutex
	now, max int
}

func (f *inflight) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.now++
	f.max = max(f.max, f.now)
	f.mu.Unlock()
	resp, err := f.RoundTripper.RoundTrip(r)
	if err != nil {
		f.done()
		return nil, err
	}
	resp.Body = &countedBody{ReadCloser: resp.Body, f: f}
	return resp, nil
}

func (f *inflight) done() {
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
}

type countedBody struct {
	io.ReadCloser
	f    *inflight
	once sync.Once
}

func (b *countedBody) Close() error {
	b.once.Do(b.f.done)
	return b.ReadCloser.Close()
}

// TestModule_Hostile is the hostile-server property test (docs/security.md, "The property
// test") under wazero:
// the model server and MCP servers a and b of internal/testing/chaos/hostile.go attack the module
// with the acts switched on, and after every step hostile.js checks the four invariants
// (approval, secrets, bounds, origins). Here the host's output must hold no secret in any
// form either. A failure names its seed and acts: HOSTILE_SEED=<seed> HOSTILE_ACTS=<acts>
// replays its schedule.
func TestModule_Hostile(t *testing.T) {
	sets, seeds, steps := hostileConfig(t)
	for _, acts := range sets {
		for _, seed := range seeds {
			t.Run(strings.Join(append([]string{"acts=" + strings.Join(acts, "+")}, fmt.Sprint(seed)), "/"), func(t *testing.T) { hostile(t, acts, seed, steps) })
		}
	}
}

// hostile plays one seed of the hostile-server test with acts on.
func hostile(t *testing.T, acts []string, seed uint32, steps int) {
	t.Parallel()
	hs := chaos.NewHostile(chaos.DefaultSecrets)
	model := httptest.NewServer(hs.Model())
	a := httptest.NewServer(hs.MCP("a"))
	b := httptest.NewServer(hs.MCP("b"))
	elsewhere := httptest.NewServer(hs.Elsewhere())
	for _, s := range []*httptest.Server{model, a, b, elsewhere} {
		t.Cleanup(func() { s.CloseClientConnections(); s.Close() }) // a stall or a listening GET may still be open
	}
	hs.ElsewhereURL = elsewhere.URL
	var out, errOut lines
	h := chaosHost(t, &out, &errOut)
	cj, err := h.LoadModule("../../../internal/testing/chaos/hostile.js")
	require.NoError(t, err)
	h.Set("hostile", cj)
	counter := &inflight{RoundTripper: http.DefaultTransport}
	client := &http.Client{Transport: counter}
	require.NoError(t, installFetch(h, client, 16<<10))
	h.Set("memory", func() int64 { return int64(h.MemorySize()) })
	h.Set("inflight", func() map[string]int {
		counter.mu.Lock()
		defer counter.mu.Unlock()
		return map[string]int{"now": counter.now, "max": counter.max}
	})
	forms, _ := json.Marshal(hs.Forms())
	secrets, _ := json.Marshal(hs.Secrets)
	actsJSON, _ := json.Marshal(acts)
	t0 := time.Now()
	h.Set("trace", func(s string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), s) })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	v, err := h.Eval(ctx, fmt.Sprintf(`
		await lm.install({});
		return await hostile.run(lm, { seed: %d, steps: %d, acts: %s, forms: %s, secrets: %s, trace, memory, inflight,
			urls: { model: %q, a: %q, b: %q } });`,
		seed, steps, actsJSON, forms, secrets, model.URL, a.URL, b.URL))
	replay := fmt.Sprintf("HOSTILE_SEED=%d HOSTILE_ACTS=%s HOSTILE_STEPS=%d replays it", seed, strings.Join(acts, ","), steps)
	require.NoError(t, err, replay)
	var rep struct {
		Violations []string       `json:"violations"`
		Counts     map[string]any `json:"counts"`
	}
	raw, _ := json.Marshal(v)
	require.NoError(t, json.Unmarshal(raw, &rep))
	t.Logf("seed %d, acts %v: %v", seed, acts, rep.Counts)
	for name, s := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
		for _, f := range chaos.Find(hs.Forms(), s) {
			rep.Violations = append(rep.Violations, fmt.Sprintf("secrets: %s (%s) in the host's %s", f.Secret, f.Kind, name))
		}
	}
	require.Empty(t, rep.Violations, replay)
}

// TestBrowser_Hostile plays the hostile-server test in headless Chromium, with the module
// on the page and in a Worker: the page's real fetch (its own redirects and CORS) against
// the servers on their own origins. The module's memory and the fetches in flight are not
// read here (the wazero run bounds them); the console must hold no secret.
func TestBrowser_Hostile(t *testing.T) {
	sets, seeds, steps := hostileConfig(t)
	if os.Getenv("HOSTILE_STEPS") == "" {
		steps = 8
	}
	if os.Getenv("HOSTILE_SEED") == "" {
		seeds = seeds[len(seeds)-1:] // the fresh seed: real time makes each cost 20 s a mode
	}
	b := browsertest.Shared(t)
	for _, acts := range sets {
		for _, seed := range seeds {
			for _, m := range modes {
				t.Run(strings.Join([]string{"acts=" + strings.Join(acts, "+"), fmt.Sprint(seed), m.name}, "/"), func(t *testing.T) {
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
						"/langmodel.wasm":  browsertest.File(moduleWasm),
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
					require.NoError(t, p.Eval(ctx, m.prelude()+fmt.Sprintf(`
						const hostile = await import("/hostile.js");
						return await hostile.run(lm, { seed: %d, steps: %d, acts: %s, forms: %s, secrets: %s,
							urls: { model: %q, a: %q, b: %q } });`,
						seed, steps, actsJSON, forms, secrets, model.URL, a.URL, bs.URL), &rep), replay)
					t.Logf("seed %d, acts %v (%s): %v", seed, acts, m.name, rep.Counts)
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
