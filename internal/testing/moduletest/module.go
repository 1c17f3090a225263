//go:build !js

// Package moduletest is what the cross-host suites of internal/integration_test share:
// the real module, built once per test binary by Main with the Go at hand; the wazero host
// running it with the real JS face (NewHost); the browser pages serving it (Serve,
// Modes); and the scenario tables more than one host plays (AllScenarios,
// AllConformance, MCPScenarios, …), so that one scenario runs the same everywhere.
// Test-only: the module never links it (make check-imports).
package moduletest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/jshost"
	"langmodel/internal/testing/replay"
	"langmodel/wasm"
)

// ModuleWasm is the path of the module under test, built once per test binary by Main with
// the Go at hand (as wazero's old internal/gojs tests did).
var ModuleWasm string

// Repo returns the path of rel (slash-separated, from the repository's root), wherever
// the test runs from.
func Repo(rel string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", filepath.FromSlash(rel))
}

// FaceJS is the JS face a page imports.
var FaceJS = Repo("js/language-model.js")

// Main is a suite's TestMain: it builds the module (GOOS=js, with the Makefile's build
// flags) into a temporary folder, runs the tests, closes the shared browsers and removes
// the module.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "langmodel-wasm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ModuleWasm = filepath.Join(dir, "langmodel.wasm")
	cmd := exec.Command("go", append(append([]string{"build"}, browsertest.ModuleBuildFlags()...), "-o", ModuleWasm, "langmodel/wasm/cmd/langmodel")...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the module: %v\n%s", err, out)
		os.Exit(2)
	}
	defer os.RemoveAll(dir)
	browsertest.Main(m) // runs the tests, then closes the shared browser
}

// NewHost starts the real module under wazero and loads the real JS face, installed.
// The host has a fetch made of Go's net/http (fetch.go) and globalThis.LLM, the
// base URL of a replay server (internal/testing/replay) of recorded model streams.
func NewHost(t *testing.T) *jshost.Host { return NewHostB(t, "", 7) }

// NewHostB is NewHost for tests and benchmarks; setup runs before install() (a stand-in
// for the browser's native LanguageModel, say), and the host's fetch reads bodies split
// bytes at a time (7 in tests: chunks cut lines and characters anywhere).
func NewHostB(t testing.TB, setup string, split int) *jshost.Host {
	t.Helper()
	h := FaceHost(t)
	llm := httptest.NewServer(&replay.Server{})
	t.Cleanup(llm.Close)
	require.NoError(t, InstallFetch(h, llm.Client(), split))
	h.Set("LLM", llm.URL)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := h.Eval(ctx, setup+`
		const r = await lm.install({}); if (r.version !== `+strconv.Itoa(wasm.ProtocolVersion)+`) throw new Error("version " + r.version);`)
	require.NoError(t, err)
	return h
}

// FaceHost runs the real module under wazero with the face loaded as the global lm, not
// yet installed.
func FaceHost(t testing.TB) *jshost.Host {
	t.Helper()
	wasmBytes, err := os.ReadFile(ModuleWasm)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h, err := jshost.New(ctx, wasmBytes, jshost.Config{Stdout: jshost.LogWriter(t.Logf), Stderr: jshost.LogWriter(t.Logf)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	StartedPort(t, h)
	ns, err := h.LoadModule(FaceJS)
	require.NoError(t, err)
	h.Set("lm", ns)
	return h
}

// StartedPort gives the face the port of the module the host started, as a page that
// starts the module itself does (js/port.js): install() then finds it and loads nothing.
func StartedPort(t testing.TB, h *jshost.Host) {
	t.Helper()
	port, err := h.LoadModule(Repo("js/port.js"))
	require.NoError(t, err)
	h.Set("lmport", port)
	_, err = h.Eval(t.Context(), `globalThis.__langmodel_channel = lmport.modulePort(go);`)
	require.NoError(t, err)
}

// PlayModule runs js in a new host (setup before install()) and returns its value.
func PlayModule(t *testing.T, setup, js string) any {
	t.Helper()
	h := NewHostB(t, setup, 7)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	v, err := h.Eval(ctx, js)
	require.NoError(t, err)
	return v
}

// RequireJSON compares got (any JSON-shaped value) with want (JSON text), both
// re-encoded with sorted keys.
func RequireJSON(t *testing.T, want string, got any) {
	t.Helper()
	var w any
	require.NoError(t, json.Unmarshal([]byte(want), &w), "want is not JSON: %s", want)
	wb, err := json.Marshal(w)
	require.NoError(t, err)
	gb, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(wb), string(gb))
}
