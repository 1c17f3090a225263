//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/jshost"
	"langmodel/internal/testing/replay"
	"langmodel/wasm"
)

// moduleWasm is the module under test, built once per test binary by TestMain with the Go
// at hand (as wazero's old internal/gojs tests did).
var moduleWasm string

const faceJS = "../../../js/language-model.js"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "langmodel-wasm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	moduleWasm = filepath.Join(dir, "langmodel.wasm")
	cmd := exec.Command("go", append(append([]string{"build"}, browsertest.ModuleBuildFlags()...), "-o", moduleWasm, ".")...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the module: %v\n%s", err, out)
		os.Exit(2)
	}
	defer os.RemoveAll(dir)
	browsertest.Main(m) // runs the tests, then closes the shared browser
}

// newHost starts the real module under wazero and loads the real JS face, installed.
// The host has a fetch made of Go's net/http (fetch_test.go) and globalThis.LLM, the
// base URL of a replay server (internal/testing/replay) of recorded model streams.
func newHost(t *testing.T) *jshost.Host { return newHostB(t, "", 7) }

// newHostB is newHost for tests and benchmarks; setup runs before install() (a stand-in
// for the browser's native LanguageModel, say), and the host's fetch reads bodies split
// bytes at a time (7 in tests: chunks cut lines and characters anywhere).
func newHostB(t testing.TB, setup string, split int) *jshost.Host {
	t.Helper()
	h := faceHost(t)
	llm := httptest.NewServer(&replay.Server{})
	t.Cleanup(llm.Close)
	require.NoError(t, installFetch(h, llm.Client(), split))
	h.Set("LLM", llm.URL)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := h.Eval(ctx, setup+`
		const r = await lm.install({}); if (r.version !== `+strconv.Itoa(wasm.ProtocolVersion)+`) throw new Error("version " + r.version);`)
	require.NoError(t, err)
	return h
}

// faceHost runs the real module under wazero with the face loaded as the global lm, not
// yet installed.
func faceHost(t testing.TB) *jshost.Host {
	t.Helper()
	wasmBytes, err := os.ReadFile(moduleWasm)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h, err := jshost.New(ctx, wasmBytes, jshost.Config{Stdout: jshost.LogWriter(t.Logf), Stderr: jshost.LogWriter(t.Logf)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	startedPort(t, h)
	ns, err := h.LoadModule(faceJS)
	require.NoError(t, err)
	h.Set("lm", ns)
	return h
}

// startedPort gives the face the port of the module the host started, as a page that
// starts the module itself does (js/port.js): install() then finds it and loads nothing.
func startedPort(t testing.TB, h *jshost.Host) {
	t.Helper()
	port, err := h.LoadModule("../../../js/port.js")
	require.NoError(t, err)
	h.Set("lmport", port)
	_, err = h.Eval(t.Context(), `globalThis.__langmodel_channel = lmport.modulePort(go);`)
	require.NoError(t, err)
}

// TestModule_Scenarios plays every scenario in the real .wasm under wazero, through the
// real js/language-model.js and the real channel.
func TestModule_Scenarios(t *testing.T) {
	for _, sc := range allScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			if sc.browserOnly {
				t.Skip("needs what goja lacks (async generators); Chromium plays it")
			}
			requireJSON(t, sc.want, playModule(t, sc.setup, common+sc.js))
		})
	}
}

// playModule runs js in a new host (setup before install()) and returns its value.
func playModule(t *testing.T, setup, js string) any {
	t.Helper()
	h := newHostB(t, setup, 7)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	v, err := h.Eval(ctx, js)
	require.NoError(t, err)
	return v
}

// requireJSON compares got (any JSON-shaped value) with want (JSON text), both
// re-encoded with sorted keys.
func requireJSON(t *testing.T, want string, got any) {
	t.Helper()
	var w any
	require.NoError(t, json.Unmarshal([]byte(want), &w), "want is not JSON: %s", want)
	wb, err := json.Marshal(w)
	require.NoError(t, err)
	gb, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(wb), string(gb))
}

// TestModule_BadMessages sends the module what no page using js/ would send, straight
// into the channel, and requires an answer and a module that lives on.
func TestModule_BadMessages(t *testing.T) {
	h := newHost(t)
	v, err := h.Eval(t.Context(), `
		const ch = globalThis.__langmodel_channel;
		for (const bad of [undefined, 5, "", "{", "null", "[]", '{"type":"prompt","id":1e400}', '{"type":"dance","id":77}',
			'{"type":"create","id":78,"session":"x"}', '{"type":"tool-return","id":99999,"value":1}', '{"type":"abort","target":-1}']) {
			ch.send(bad);
		}
		const q = [ch.query(), ch.query(7), ch.query("{"), ch.query('{"type":"history","session":12345}')];
		const s = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "alive" }] } });
		return { q: q.map((x) => x === undefined ? "undefined" : JSON.parse(x).error?.name), alive: await s.prompt("x") };`)
	require.NoError(t, err)
	requireJSON(t, `{"q":["undefined","undefined","TypeError","InvalidStateError"],"alive":"alive"}`, v)
	code, exited := h.Exited()
	require.False(t, exited, "exit code %d", code)
}

// TestModule_VersionMismatch: a face and a module that speak different protocol versions
// fail install() with NotSupportedError; install() may then be retried.
func TestModule_VersionMismatch(t *testing.T) {
	h := faceHost(t)
	v, err := h.Eval(t.Context(), `
		const real = globalThis.__langmodel_channel;
		globalThis.__langmodel_channel = { ...real, send: (m) => real.send(m.replace(/"version":\d+/, '"version":99')) };
		let first;
		try { await lm.install({}); } catch (e) { first = [e.name, e.message]; }
		globalThis.__langmodel_channel = real;
		return { first, second: (await lm.install({})).version };`)
	require.NoError(t, err)
	requireJSON(t, fmt.Sprintf(`{"first":["NotSupportedError","langmodel: the page speaks protocol 99 and the module %[1]d; load the language-model.js built with this module"],"second":%[1]d}`, wasm.ProtocolVersion), v)
}

// TestModule_InstallBackend: install({backend}) sets the default of create(), which
// create({backend}) overrides; a malformed default fails install(), which may be retried.
func TestModule_InstallBackend(t *testing.T) {
	h := faceHost(t)
	v, err := h.Eval(t.Context(), `
		const bad = await lm.install({ backend: { kind: "custom", generate: 5 } }).then(() => "installed", (e) => e.name + ": " + e.message);
		await lm.install({ backend: { kind: "custom", generate: (req) => "default saw " + req.messages.length } });
		const a = await lm.LanguageModel.create();
		const b = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "override" }] } });
		const c = await a.clone();
		return { bad, a: await a.prompt("x"), b: await b.prompt("x"), c: await c.prompt("y"), avail: await lm.LanguageModel.availability() };`)
	require.NoError(t, err)
	requireJSON(t, `{"bad":"TypeError: invalid backend: backend.generate must be a function","a":"default saw 1","b":"override","c":"default saw 1","avail":"available"}`, v)
}
