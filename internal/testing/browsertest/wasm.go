package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// BareReadyGlobal is the global function that the bare module (BuildBare) calls
// once its main runs, with the string "ready".
const BareReadyGlobal = "browsertestReady"

// NoInline lists the project's packages that the module's build compiles without
// inlining: the Makefile's NOINLINE, read from the Makefile, which is where the list is
// written and why (the cold packages, and those measured not to move a step without it).
// It panics if the Makefile has no NOINLINE line: a test would build another module than
// make does.
var NoInline = sync.OnceValue(func() []string {
	_, here, _, _ := runtime.Caller(0)
	makefile := filepath.Join(filepath.Dir(here), "..", "..", "..", "Makefile")
	data, err := os.ReadFile(makefile)
	if err != nil {
		panic("browsertest: the Makefile's NOINLINE: " + err.Error())
	}
	for line := range strings.Lines(string(data)) {
		if list, ok := strings.CutPrefix(line, "NOINLINE := "); ok {
			return strings.Fields(list)
		}
	}
	panic("browsertest: " + makefile + " sets no NOINLINE")
})

// ModuleBuildFlags are the go build flags the module is built with, as make module
// builds it: -trimpath, -ldflags='-s -w' (the flags the module's sizes are measured with)
// and -gcflags=langmodel/<p>=-l for each package of NoInline.
func ModuleBuildFlags() []string {
	flags := []string{"-trimpath", "-ldflags=-s -w"}
	for _, p := range NoInline() {
		flags = append(flags, "-gcflags=langmodel/"+p+"=-l")
	}
	return flags
}

// BuildWasm builds the main package in dir with GOOS=js GOARCH=wasm and
// ModuleBuildFlags, using the go command on PATH, into a file in tb.TempDir(), and
// returns the file's path. The go build cache makes a rebuild take about 0.1 s; a
// cold cache about 4 s.
func BuildWasm(tb testing.TB, dir string) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), filepath.Base(dir)+".wasm")
	cmd := exec.Command("go", append(append([]string{"build"}, ModuleBuildFlags()...), "-o", out, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("browsertest: GOOS=js GOARCH=wasm go build in %s: %v\n%s", dir, err, msg)
	}
	return out
}

// BuildBare builds the bare GOOS=js program, wasm/testdata/bare (syscall/js only,
// about 1.9 MB; it lives under wasm/ because only wasm/ may import syscall/js): it
// prints "hello from Go" to the console, calls BareReadyGlobal, and returns. It is
// the proof that the stack works and the baseline for startup benchmarks.
func BuildBare(tb testing.TB) string {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	bareSource, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "..", "wasm", "testdata", "bare", "main.go"))
	if err != nil {
		tb.Fatalf("browsertest: the bare program: %v", err)
	}
	dir := filepath.Join(tb.TempDir(), "bare")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"go.mod":  []byte("module bare\n\ngo 1.26\n"),
		"main.go": bareSource,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return BuildWasm(tb, dir)
}

var goroot = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
})

// WasmExecJS returns the path of $(go env GOROOT)/lib/wasm/wasm_exec.js, the
// loader that matches the modules BuildWasm builds. Serve it from there with
// File; never copy it into the repository.
func WasmExecJS(tb testing.TB) string {
	tb.Helper()
	root, err := goroot()
	if err != nil {
		tb.Fatalf("browsertest: go env GOROOT: %v", err)
	}
	path := filepath.Join(root, "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(path); err != nil {
		tb.Fatalf("browsertest: %v", err)
	}
	return path
}

// Compile says whether each round of InstantiateMs compiles the module afresh.
type Compile bool

const (
	// Cold rounds each get bytes that differ by one custom section, so V8 cannot
	// reuse an earlier compilation: what a page pays when it loads the module.
	Cold Compile = true
	// Warm rounds reuse the same bytes, and V8 reuses its compiled code after the
	// first round: what is left is instantiation and the Go runtime's start.
	Warm Compile = false
)

// instantiateScript times n startups of one module in the page.
const instantiateScript = `const p = %s;
if (typeof Go !== "function") await import(p.execJS);
const resp = await fetch(p.wasm);
if (!resp.ok) throw new Error(p.wasm + ": HTTP " + resp.status);
const bytes = new Uint8Array(await resp.arrayBuffer());
// A custom section (id 0) named for the round; names stay under 127 bytes, so
// both lengths are one-byte LEB128s.
const salted = (i) => {
	const name = new TextEncoder().encode("browsertest-round-" + i);
	const out = new Uint8Array(bytes.length + 3 + name.length);
	out.set(bytes);
	out.set([0, name.length + 1, name.length], bytes.length);
	out.set(name, bytes.length + 3);
	return out;
};
const times = [];
try {
	for (let i = 0; i < p.n; i++) {
		const module = p.cold ? salted(i) : bytes;
		const go = new Go();
		const ready = new Promise((resolve) => { globalThis[p.ready] = resolve; });
		const t0 = performance.now();
		const { instance } = await WebAssembly.instantiate(module, go.importObject);
		const exited = go.run(instance).then(() => "exited");
		if (await Promise.race([ready.then(() => "ready"), exited]) !== "ready") {
			throw new Error("the Go program exited without calling " + p.ready);
		}
		times.push(performance.now() - t0);
	}
} finally {
	delete globalThis[p.ready];
}
return times;`

// InstantiateMs starts the GOOS=js module at wasmURL n times in this page and
// returns each start's time in milliseconds, in order. The bytes are fetched
// once; a round is WebAssembly.instantiate, then go.run until the program calls
// the global function readyGlobal, which InstantiateMs defines before each round.
// c chooses Cold rounds (a fresh compile each time, as a page load) or Warm ones.
// execJSURL is wasm_exec.js, loaded unless the page already has Go.
//
// This is the startup benchmark's tool: run it for BuildBare's module and for the
// real one in the same page and run, and compare their Medians.
// performance.now() is coarsened to 0.1 ms in a page that is not cross-origin
// isolated, and single rounds vary by a factor of two, so use n ≥ 10.
func (p *Page) InstantiateMs(ctx context.Context, wasmURL, execJSURL, readyGlobal string, n int, c Compile) ([]float64, error) {
	params, err := json.Marshal(map[string]any{"wasm": wasmURL, "execJS": execJSURL, "ready": readyGlobal, "n": n, "cold": bool(c)})
	if err != nil {
		return nil, err
	}
	var ms []float64
	if err := p.Eval(ctx, fmt.Sprintf(instantiateScript, params), &ms); err != nil {
		return nil, fmt.Errorf("browsertest: instantiating %s: %w", wasmURL, err)
	}
	return ms, nil
}

// Median returns the median of xs (the mean of the middle two for an even count),
// or 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
