package browsertest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// site writes a page with a module script and a module to import, and serves it.
func site(t *testing.T) string {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html": `<!doctype html><meta charset=utf-8><title>site</title>
<script type="module" src="./main.mjs"></script>`,
		"main.mjs": `import { add } from "./lib.mjs";
globalThis.fromModule = add(40, 2);`,
		"lib.mjs": `export const add = (a, b) => a + b;`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return browsertest.Serve(t, dir, nil)
}

func TestEval_Values(t *testing.T) {
	t.Parallel()
	base := site(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) { evalValues(t, b.Open(t, base+"/")) })
}

func evalValues(t *testing.T, p *browsertest.Page) {
	ctx := t.Context()

	var n float64
	require.NoError(t, p.Eval(ctx, `return 1 + 2.5`, &n))
	require.Equal(t, 3.5, n)

	var fromModule int
	require.NoError(t, p.Eval(ctx, `return globalThis.fromModule`, &fromModule), "the module script ran before load")
	require.Equal(t, 42, fromModule)

	var obj struct {
		S   string         `json:"s"`
		Arr []int          `json:"arr"`
		M   map[string]any `json:"m"`
	}
	require.NoError(t, p.Eval(ctx, `
		await new Promise((r) => setTimeout(r, 1));
		const { add } = await import("./lib.mjs");
		return { s: "é", arr: [1, 2, add(1, 2)], m: { u: undefined, n: null } };`, &obj))
	require.Equal(t, "é", obj.S)
	require.Equal(t, []int{1, 2, 3}, obj.Arr)
	require.Equal(t, map[string]any{"n": nil}, obj.M, "undefined properties are dropped, as JSON.stringify does")

	var arr []any
	require.NoError(t, p.Eval(ctx, `return ["a", 1, true, null]`, &arr))
	require.Equal(t, []any{"a", 1.0, true, nil}, arr)

	ptr := new(int)
	require.NoError(t, p.Eval(ctx, `return undefined`, &ptr))
	require.Nil(t, ptr, "undefined decodes as null")
	require.NoError(t, p.Eval(ctx, `globalThis.x = 1`, nil))
}

func TestEval_Errors(t *testing.T) {
	t.Parallel()
	base := site(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) { evalErrors(t, b.Open(t, base+"/")) })
}

// evalErrors: the engines word syntax errors and JSON.stringify's refusal in their
// own ways; the names are the same.
func evalErrors(t *testing.T, p *browsertest.Page) {
	for _, tc := range []struct {
		name, body string
		want       map[browsertest.Engine]string // by engine, or "" for all
	}{
		{"DOMException", `throw new DOMException("x", "AbortError")`, all("js: AbortError: x")},
		{"rejection", `await Promise.reject(new TypeError("bad arg"))`, all("js: TypeError: bad arg")},
		{"thrown string", `throw "oops"`, all("js: thrown: oops")},
		{"syntax error", `return )`, map[browsertest.Engine]string{
			browsertest.Chromium: "js: SyntaxError: Unexpected token ')'",
			browsertest.Firefox:  "js: SyntaxError: expected expression, got ')'",
			browsertest.WebKit:   "js: SyntaxError: Unexpected token ')'",
		}},
		{"not serialisable", `return 1n`, map[browsertest.Engine]string{
			browsertest.Chromium: "js: TypeError: Do not know how to serialize a BigInt",
			browsertest.Firefox:  "js: TypeError: BigInt value can't be serialized in JSON",
			browsertest.WebKit:   "js: TypeError: JSON.stringify cannot serialize BigInt.",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := tc.want[p.Engine]
			if !ok {
				want = tc.want[""]
			}
			err := p.Eval(t.Context(), tc.body, nil)
			require.EqualError(t, err, want)
			var jsErr *browsertest.JSError
			require.ErrorAs(t, err, &jsErr)
		})
	}

	var jsErr *browsertest.JSError
	require.ErrorAs(t, p.Eval(t.Context(), `throw new DOMException("x", "AbortError")`, nil), &jsErr)
	require.Equal(t, "AbortError", jsErr.Name)
	require.Equal(t, "x", jsErr.Message)

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, p.Eval(ctx, `await new Promise(() => {})`, nil), context.DeadlineExceeded)
	require.NoError(t, p.Eval(t.Context(), `return 1`, nil), "the page still works after a timeout")
}

func all(s string) map[browsertest.Engine]string { return map[browsertest.Engine]string{"": s} }

func TestConsole(t *testing.T) {
	t.Parallel()
	base := site(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) { console(t, b.Open(t, base+"/")) })
}

func console(t *testing.T, p *browsertest.Page) {
	require.NoError(t, p.Eval(t.Context(), `
		console.log("hello", 42, { a: 1, b: "x" }, [1, 2]);
		console.error("bad");
		setTimeout(() => { throw new Error("boom"); });
		Promise.reject(new RangeError("nope"));`, nil))
	require.Contains(t, p.Console(), `log: hello 42 {a: 1, b: "x"} [1, 2]`, "recorded by the time Eval returns")
	require.Contains(t, p.Console(), "error: bad")
	rejection := "exception: Uncaught (in promise) RangeError: nope"
	if p.Engine == browsertest.Firefox { // its log does not tell a rejection from a throw
		rejection = "exception: Uncaught RangeError: nope"
	}
	require.Eventually(t, func() bool {
		c := strings.Join(p.Console(), "\n")
		return strings.Contains(c, "exception: Uncaught Error: boom") && strings.Contains(c, rejection)
	}, 5*time.Second, 10*time.Millisecond, "console: %q", p.Console())
}

func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"m.wasm", "a.js", "b.mjs", "index.html"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644))
	}
	base := browsertest.Serve(t, dir, map[string]http.Handler{
		"/extra.js": browsertest.File(filepath.Join(dir, "a.js")),
	})
	for path, want := range map[string]string{
		"/m.wasm":   "application/wasm",
		"/a.js":     "text/javascript; charset=utf-8",
		"/b.mjs":    "text/javascript; charset=utf-8",
		"/extra.js": "text/javascript; charset=utf-8",
		"/":         "text/html; charset=utf-8",
	} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Equal(t, want, resp.Header.Get("Content-Type"), path)
		require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), path)
	}
	resp, err := http.Get(base + "/missing.js")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	blank := browsertest.Serve(t, "", nil)
	resp, err = http.Get(blank + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "an empty page to Open")
}

// TestWasm is the end-to-end proof: Go's own wasm_exec.js, a GOOS=js module and
// instantiateStreaming, which needs the application/wasm content type.
func TestWasm(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, "", map[string]http.Handler{
		"/bare.wasm":    browsertest.File(browsertest.BuildBare(t)),
		"/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(t)),
	})
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) { wasm(t, b.Open(t, base+"/"), base) })
}

func wasm(t *testing.T, p *browsertest.Page, base string) {

	var ct string
	require.NoError(t, p.Eval(t.Context(), `return (await fetch("/bare.wasm")).headers.get("content-type")`, &ct))
	require.Equal(t, "application/wasm", ct)

	var got struct {
		Ready  string `json:"ready"`
		Exited bool   `json:"exited"`
	}
	require.NoError(t, p.Eval(t.Context(), `
		await import("/wasm_exec.js");
		const go = new Go();
		const ready = new Promise((resolve) => { globalThis.`+browsertest.BareReadyGlobal+` = resolve; });
		const { instance } = await WebAssembly.instantiateStreaming(fetch("/bare.wasm"), go.importObject);
		const run = go.run(instance);
		const value = await ready;
		await run;
		return { ready: value, exited: go.exited };`, &got))
	require.Equal(t, "ready", got.Ready)
	require.True(t, got.Exited, "main returned")
	require.Contains(t, p.Console(), "log: hello from Go", "println reaches the console through wasm_exec.js")

	for _, c := range []browsertest.Compile{browsertest.Cold, browsertest.Warm} {
		ms, err := p.InstantiateMs(t.Context(), base+"/bare.wasm", base+"/wasm_exec.js", browsertest.BareReadyGlobal, 3, c)
		require.NoError(t, err)
		require.Len(t, ms, 3)
		t.Logf("bare module, cold=%v: instantiate → ready %.1f ms", c, ms)
	}

	_, err := p.InstantiateMs(t.Context(), base+"/bare.wasm", base+"/wasm_exec.js", "neverCalled", 1, browsertest.Warm)
	require.ErrorContains(t, err, "js: Error: the Go program exited without calling neverCalled")
}

// TestLanguageModel records what each engine offers natively (DESIGN.md §3:
// Debian's Chromium 156 has a LanguageModel with no model behind it; Firefox and
// WebKit have none).
func TestLanguageModel(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, "", nil)
	want := map[browsertest.Engine][2]string{
		browsertest.Chromium: {"function", "unavailable"},
		browsertest.Firefox:  {"undefined", ""},
		browsertest.WebKit:   {"undefined", ""},
	}
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		var got struct {
			Type         string `json:"type"`
			Availability string `json:"availability"`
			Secure       bool   `json:"secure"`
		}
		require.NoError(t, p.Eval(t.Context(), `return {
			type: typeof LanguageModel,
			availability: typeof LanguageModel === "function" ? await LanguageModel.availability() : "",
			secure: isSecureContext,
		}`, &got))
		t.Logf("%s: LanguageModel is %s, availability() = %q", b.Version, got.Type, got.Availability)
		require.True(t, got.Secure, "127.0.0.1 is a secure context")
		require.Equal(t, want[b.Engine], [2]string{got.Type, got.Availability})
	})
}

func TestScreenshot(t *testing.T) {
	t.Parallel()
	base := site(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) { screenshot(t, b.Open(t, base+"/")) })
}

func screenshot(t *testing.T, p *browsertest.Page) {
	path := filepath.Join(t.TempDir(), "shots", "page.png")
	require.NoError(t, p.Screenshot(path))
	png, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(png), "\x89PNG\r\n\x1a\n"))
}

// TestStart starts and closes a browser of each engine $BROWSERS selects (beside
// the shared ones).
func TestStart(t *testing.T) {
	engines, err := browsertest.Engines()
	require.NoError(t, err)
	for _, tc := range []struct {
		engine  browsertest.Engine
		product string
	}{
		{browsertest.Chromium, "Chrome/"},
		{browsertest.Firefox, "Firefox/"},
		{browsertest.WebKit, "WebKitGTK/"},
	} {
		if !slices.Contains(engines, tc.engine) {
			continue
		}
		t.Run(string(tc.engine), func(t *testing.T) {
			if os.Getenv(browsertest.SkipEnv) == "1" {
				t.Skip("browsertest: " + browsertest.SkipEnv + "=1")
			}
			start := time.Now()
			b, err := browsertest.StartEngine(t.Context(), tc.engine)
			require.NoError(t, err)
			started := time.Since(start)
			b.Close()
			b.Close()
			t.Logf("%s: start %v, close %v", b.Version, started.Round(time.Millisecond), (time.Since(start) - started).Round(time.Millisecond))
			require.True(t, strings.HasPrefix(b.Version, tc.product), b.Version)
			require.Equal(t, tc.engine, b.Engine)
		})
	}
}

// TestEachOwn: each engine's browser is the test's own, not the shared one, and pages
// open in it as in the shared one.
func TestEachOwn(t *testing.T) {
	base := site(t)
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		require.NotSame(t, browsertest.SharedEngine(t, b.Engine), b)
		var got float64
		require.NoError(t, b.Open(t, base+"/").Eval(t.Context(), `return globalThis.fromModule`, &got))
		require.Equal(t, 42.0, got)
	})
}

// TestStart_Missing: a missing browser is an error that says how to install it,
// never a skip.
func TestStart_Missing(t *testing.T) {
	for _, tc := range []struct {
		engine      browsertest.Engine
		env, script string
	}{
		{browsertest.Chromium, "CHROMIUM", "run .ci/install-chromium.sh"},
		{browsertest.Firefox, "FIREFOX", "run .ci/install-browsers.sh"},
		{browsertest.WebKit, "WEBKITWEBDRIVER", "run .ci/install-browsers.sh"},
	} {
		t.Run(string(tc.engine), func(t *testing.T) {
			t.Setenv(tc.env, "/nonexistent/browser")
			_, err := browsertest.StartEngine(t.Context(), tc.engine)
			require.ErrorContains(t, err, tc.script)
		})
	}
}

// TestEngines: $BROWSERS selects engines, in a fixed order; a typo is an error.
func TestEngines(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want []browsertest.Engine
		err  string
	}{
		{"", browsertest.AllEngines, ""},
		{"firefox", []browsertest.Engine{browsertest.Firefox}, ""},
		{"webkit, Chromium,webkit", []browsertest.Engine{browsertest.Chromium, browsertest.WebKit}, ""},
		{"chrome", nil, `browsertest: BROWSERS="chrome": unknown engine "chrome" (known: chromium, firefox, webkit)`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(browsertest.BrowsersEnv, tc.env)
			got, err := browsertest.Engines()
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// BenchmarkInstantiateBare is the startup baseline: the bare GOOS=js module,
// started 20 times per round, cold and warm, in one page. A benchmark of the real
// module reports the same metrics in the same run, with InstantiateMs and Median.
// Chromium only, as DESIGN.md §5's startup budget is stated for it.
func BenchmarkInstantiateBare(b *testing.B) {
	base := browsertest.Serve(b, "", map[string]http.Handler{
		"/bare.wasm":    browsertest.File(browsertest.BuildBare(b)),
		"/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(b)),
	})
	p := browsertest.Shared(b).Open(b, base+"/")
	var cold, warm []float64
	for b.Loop() {
		for _, c := range []browsertest.Compile{browsertest.Cold, browsertest.Warm} {
			ms, err := p.InstantiateMs(b.Context(), base+"/bare.wasm", base+"/wasm_exec.js", browsertest.BareReadyGlobal, 20, c)
			require.NoError(b, err)
			if c == browsertest.Cold {
				cold = append(cold, ms...)
			} else {
				warm = append(warm, ms...)
			}
		}
	}
	b.ReportMetric(browsertest.Median(cold), "cold-ms")
	b.ReportMetric(browsertest.Median(warm), "warm-ms")
	b.Logf("%d rounds each; cold: median %.1f ms, max %.1f; warm: median %.1f ms, max %.1f",
		len(cold), browsertest.Median(cold), slices.Max(cold), browsertest.Median(warm), slices.Max(warm))
}

// fatalRecorder is a test whose Fatalf records instead of stopping, to see what
// Open says about a page that fails.
type fatalRecorder struct {
	*testing.T
	fatal string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

// TestOpen_HTTPError: a page that answers with an HTTP error fails the test, where
// the engine reports the status (WebKit's WebDriver does not).
func TestOpen_HTTPError(t *testing.T) {
	base := browsertest.Serve(t, "", nil)
	want := map[browsertest.Engine]string{
		browsertest.Chromium: "browsertest: chromium: opening " + base + "/missing: HTTP 404",
		browsertest.Firefox:  "browsertest: firefox: opening " + base + "/missing: HTTP 404",
		browsertest.WebKit:   "",
	}
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		r := &fatalRecorder{T: t}
		b.Open(r, base+"/missing")
		require.Equal(t, want[b.Engine], r.fatal)
	})
}
