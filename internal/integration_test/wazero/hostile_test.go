//go:build !js

package wazero

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/moduletest"
)

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
	sets, seeds, steps := moduletest.HostileConfig(t)
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
	require.NoError(t, moduletest.InstallFetch(h, client, 16<<10))
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
