//go:build !js

package peerbench

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

var (
	rounds   = flag.Int("peers.rounds", 5, "interleaved rounds of every figure")
	peerReps = flag.Int("peers.reps", 2, "batches of each step figure a side times in a round, alternated; the fastest counts")
	only     = flag.String("peers.only", "", `"start" for the start figures alone, "steps" for the others; "" for all`)
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// startHead starts each start page: a long-task observer registered before anything
// loads, and answer(text), which the page calls with its first answer.
const startHead = `<!doctype html><meta charset=utf-8><title>start</title>
<script>
globalThis.longTasks = [];
new PerformanceObserver((list) => {
	for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
}).observe({ type: "longtask", buffered: true });
globalThis.started = new Promise((resolve) => { globalThis.answer = (text) => resolve({ text, ms: performance.now() }); });
</script>
`

// The start pages: from navigation to the first answer, as a page would do it. The
// module's face is bundled and minified by the same esbuild as the SDK (/face/, from
// language-model.js), as an app that installs either from npm ships it; "plain" loads
// the face's files as they are, without a bundler (each file a request).
var startPages = map[string]string{
	"module": startHead + moduleStart("/face/language-model.js", ""),
	"plain":  startHead + moduleStart("/js/language-model.js", `{ wasm: "/langmodel.wasm" }`),
	// bare is the floor of any module built by the standard Go toolchain: Go's loader and
	// a program that only calls the page back (browsertest.BuildBare, 1.9 MB, no face),
	// compiled as it streams in and then instantiated, as install() does, with the same
	// marks, so that its phases stand beside the module's.
	"bare": startHead + `<script type="module">
await import("/wasm_exec.js");
` + startMarks + `
globalThis.` + browsertest.BareReadyGlobal + ` = () => { marks.installed = marks.created = performance.now(); answer("hi"); };
const go = new Go();
const module = await WebAssembly.compileStreaming(fetch("/bare.wasm"));
go.run(await WebAssembly.instantiate(module, go.importObject));
</script>`,
	"sdk": startHead + `<script type="module">
import { generateText, MockLanguageModelV3 } from "/sdk/sdk.js";
const model = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text: "hi" }],
	finishReason: { unified: "stop", raw: "stop" }, warnings: [],
	usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } } }) });
answer((await generateText({ model, prompt: "hello" })).text);
</script>`,
}

// startMarks is the start pages' script that marks when each phase of a start ended (ms
// since navigation, for the breakdown): the page's script evaluated (the face imported,
// or Go's wasm_exec.js), the fetch started and answered, the first WebAssembly call, the
// module compiled, the instance made; and how long compiling and instantiating took, from
// the first call to either (compileStreaming overlaps the download) to the instance. The
// page marks the rest: the module ready (Go's runtime, package initialisation and main),
// create() and the first prompt.
const startMarks = `let t0;
const marks = (globalThis.startMarks = { faceLoaded: performance.now() });
const realFetch = fetch;
globalThis.fetch = async (...a) => { marks.fetchCalled ??= performance.now(); const r = await realFetch(...a); marks.fetchHeaders ??= performance.now(); return r; };
for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming"]) {
	const real = WebAssembly[name];
	WebAssembly[name] = async (...args) => {
		t0 ??= marks.wasmCall = performance.now();
		try { return await real(...args); } finally {
			globalThis.compileMs = performance.now() - t0;
			marks[name.startsWith("compile") ? "compiled" : "instantiated"] = performance.now();
		}
	};
}`

// moduleStart is the module's start page body, importing the face from face and calling
// install(config). The bundled face finds langmodel.wasm beside itself, as a bundled app
// does, and carries Go's wasm_exec.js inside it (esbuild bundles its dynamic import).
func moduleStart(face, config string) string {
	return `<script type="module">
` + startMarks + `
import { install } from "` + face + `";
try {
	await install(` + config + `);
	marks.installed = performance.now();
	const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "hi" }] } });
	marks.created = performance.now();
	answer(await s.prompt("hello"));
} catch (e) {
	answer(e.name + ": " + e.message); // fails the round at once, with what went wrong
}
</script>`
}

// cacheable serves h with a day's max-age instead of browsertest's no-store, so that a
// reload is a repeat visit (the HTTP cache, and V8's code caches, may serve it).
func cacheable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=86400")
		h.ServeHTTP(w, r)
	})
}

// BenchmarkPeers prints the table of `make bench-peers`. Run it once:
//
//	go test -run '^$' -bench Peers -benchtime 1x ./internal/integration_test/peerbench/
func BenchmarkPeers(b *testing.B) {
	esbuild := filepath.Join("node_modules", ".bin", "esbuild")
	if _, err := os.Stat(esbuild); err != nil {
		b.Fatalf("peerbench: %v: run make bench-peers, which installs the pinned AI SDK and esbuild (npm ci)", err)
	}
	dir := b.TempDir()
	bundle(b, esbuild, "sdk-bench.js", filepath.Join(dir, "sdk.js"))
	bundle(b, esbuild, "sdk-ship.js", filepath.Join(dir, "ship.js"))
	wasm := browsertest.BuildWasm(b, "../../../wasm/cmd/langmodel")
	execJS := browsertest.WasmExecJS(b)
	face := filepath.Join(b.TempDir(), "face")
	bundle(b, esbuild, packagedFace(b, execJS), filepath.Join(face, "language-model.js"))

	handlers := map[string]http.Handler{
		"/langmodel.wasm":      browsertest.File(wasm),
		"/wasm_exec.js":        browsertest.File(execJS),
		"/js/":                 http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
		"/sdk/":                http.StripPrefix("/sdk/", http.FileServer(http.Dir(dir))),
		"/face/langmodel.wasm": browsertest.File(wasm),
		"/face/":               http.StripPrefix("/face/", http.FileServer(http.Dir(face))),
		"/peer/bench.js":       browsertest.File("bench.js"),
		"/bare.wasm":           browsertest.File(browsertest.BuildBare(b)),
	}
	for name, html := range startPages {
		handlers["/peer/start-"+name+".html"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		})
	}
	for k, h := range handlers {
		handlers[k] = cacheable(h)
	}
	base := browsertest.Serve(b, "", handlers)
	br := browsertest.Shared(b)

	ctx, cancel := context.WithTimeout(b.Context(), 20*time.Minute)
	defer cancel()
	var t table
	for b.Loop() {
		t = table{rounds: *rounds, browser: br.Version}
		t.transfer(b, filepath.Join(dir, "ship.js"), wasm, filepath.Join(face, "language-model.js"))
		p := br.Open(b, base+"/")
		require.NoError(b, p.Eval(ctx, `
			globalThis.sdk = await import("/sdk/sdk.js");
			globalThis.bench = await import("/peer/bench.js");
			globalThis.lm = await import("/js/language-model.js");
			await lm.install({ wasm: "/langmodel.wasm" });
			globalThis.messages = bench.history(10000);`, nil))
		// One round of every loop, not counted: V8 compiles both sides' code up first.
		for _, n := range loopLengths {
			if *only == "start" {
				break
			}
			require.NoError(b, p.Eval(ctx, fmt.Sprintf(`await bench.sdkLoop(sdk, %[1]d, 1); await bench.moduleLoop(LanguageModel, %[1]d, 1)`, n), nil))
		}
		for r := range *rounds {
			// Which side goes first alternates by round, so that neither always runs on a
			// browser warmed (or cluttered) by the other.
			sides := []string{"sdk", "module"}
			if r%2 == 1 {
				sides = []string{"module", "sdk"}
			}
			for _, n := range loopLengths {
				if *only == "start" {
					break
				}
				// A batch of about 200 steps a figure (performance.now() is coarsened to
				// 100 µs here), -peers.reps batches a side alternated a b b a …, the
				// fastest counting: on a shared machine, load only ever adds time.
				k := (200 + n - 1) / n
				best := map[string]float64{}
				for j := range *peerReps {
					for x := range sides {
						side := sides[x]
						if j%2 == 1 {
							side = sides[len(sides)-1-x]
						}
						var ms float64
						js := fmt.Sprintf(`return bench.sdkLoop(sdk, %d, %d)`, n, k)
						if side == "module" {
							js = fmt.Sprintf(`return bench.moduleLoop(LanguageModel, %d, %d)`, n, k)
						}
						require.NoError(b, p.Eval(ctx, js, &ms))
						if v, ok := best[side]; !ok || ms < v {
							best[side] = ms
						}
					}
				}
				for _, side := range sides {
					t.add(fmt.Sprintf("step-%d-%s", n, side), best[side])
				}
			}
			for _, side := range sides {
				if *only == "start" {
					break
				}
				if side == "sdk" {
					var ms float64
					require.NoError(b, p.Eval(ctx, `return bench.sdkHistory(sdk, messages)`, &ms))
					t.add("history-sdk", ms)
					continue
				}
				var got struct{ Create, Prompt float64 }
				require.NoError(b, p.Eval(ctx, `return bench.moduleHistory(LanguageModel, messages)`, &got))
				t.add("history-module", got.Create)
				t.add("history-prompt", got.Prompt)
			}
			for _, side := range append(sides, "plain", "bare") {
				if *only == "steps" {
					break
				}
				t.start(b, ctx, base, side)
			}
		}
	}
	fmt.Print(t.String())
	for _, f := range t.figures() {
		if f.metric != "" && t.median(f.sdk) > 0 {
			b.ReportMetric(t.median(f.module)/t.median(f.sdk), f.metric)
		}
	}
	b.ReportMetric(0, "ns/op")
}

var loopLengths = []int{1, 10, 100, 1000}

// packagedFace copies the face's files and Go's wasm_exec.js into a directory, as the
// package has them (make package), and returns its entry: bundled from there, the face
// carries wasm_exec.js, which its dynamic import names beside it.
func packagedFace(b *testing.B, execJS string) string {
	b.Helper()
	dir := b.TempDir()
	files, err := filepath.Glob("../../../js/*.js")
	require.NoError(b, err)
	for _, f := range append(files, execJS) {
		data, err := os.ReadFile(f)
		require.NoError(b, err)
		require.NoError(b, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
	}
	return filepath.Join(dir, "language-model.js")
}

// bundle bundles entry with esbuild as a page would ship it: ESM, minified, for browsers.
func bundle(b *testing.B, esbuild, entry, out string) {
	b.Helper()
	cmd := exec.Command(esbuild, entry, "--bundle", "--minify", "--format=esm", "--platform=browser", "--log-level=warning", "--outfile="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("peerbench: esbuild %s: %v\n%s", entry, err, msg)
	}
}

// start measures a first visit and a repeat visit of side's start page, each until the
// first answer, in a Chromium of its own with a fresh profile on disk: not browsertest's
// browser, whose tabs live in off-the-record contexts, where V8 keeps no code cache.
// Between the visits the page runs 500 closed-loop steps and then stays open 3 s, so that
// V8 may write its code caches, as it does a while after optimising; the second visit
// navigates to the same URL again.
func (t *table) start(b *testing.B, ctx context.Context, base, side string) {
	b.Helper()
	bctx, cancel := ownBrowser(b)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	url := base + "/peer/start-" + side + ".html"
	_, err := chromedp.Run(bctx, chromedp.Navigate(url))
	require.NoError(b, err)
	cold := waitStart(b, bctx)
	t.add("cold-"+side, cold.Ms)
	t.add("longtask-"+side, cold.Longest)
	// A visit does some work after its first answer (500 closed-loop steps), so that V8
	// tiers the hot code up, as it would on a real page: V8 writes a module's code cache
	// only once enough of it has been optimised.
	work := `const bench = await import("/peer/bench.js"); await bench.moduleLoop(LanguageModel, 100, 5);`
	switch side {
	case "sdk":
		work = `const bench = await import("/peer/bench.js"); await bench.sdkLoop(await import("/sdk/sdk.js"), 100, 5);`
	case "bare":
		work = "" // it has nothing more to run
	}
	_, err = chromedp.Run(bctx, chromedp.Evaluate[chromedp.Void](`(async () => {`+work+`})()`, chromedp.EvalAwaitPromise))
	require.NoError(b, err)
	time.Sleep(3 * time.Second)
	_, err = chromedp.Run(bctx, chromedp.Navigate("about:blank"))
	require.NoError(b, err)
	_, err = chromedp.Run(bctx, chromedp.Navigate(url))
	require.NoError(b, err)
	warm := waitStart(b, bctx)
	t.add("warm-"+side, warm.Ms)
	t.add("warmlongtask-"+side, warm.Longest)
	if side == "module" || side == "plain" {
		t.add("compile-cold-"+side, cold.Compile)
		t.add("compile-warm-"+side, warm.Compile)
	}
	if side == "module" || side == "bare" {
		for visit, st := range map[string]startTimes{"cold": cold, "warm": warm} {
			at := 0.0
			for _, p := range startPhases {
				end, ok := st.Marks[p.mark]
				if !ok { // a phase the face skipped (no separate compile): it took no time
					end = at
				}
				t.add("phase-"+visit+"-"+p.mark+"-"+side, end-at)
				at = end
			}
			t.add("phase-"+visit+"-busy-"+side, st.CompileBusy)
		}
	}
}

// ownBrowser starts a headless Chromium of the benchmark's own, with a fresh profile on
// disk (browsertest's tabs live in off-the-record contexts), with browsertest's flags.
func ownBrowser(tb testing.TB) (context.Context, context.CancelFunc) {
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.UserDataDir(tb.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true))
	ctx, cancel := chromedp.NewContext(alloc)
	return ctx, func() {
		cancel()
		cancelAlloc()
	}
}

type startTimes struct {
	Ms, Longest, Compile float64
	CompileBusy          float64            // of the compile phase, ms in main-thread long tasks
	Marks                map[string]float64 // the page's phase ends, as startMarks and the page set them
}

// startPhases are the breakdown's phases of the module page's start, each from the end
// of the one before (the first from navigation) to the mark it names.
var startPhases = []struct{ name, mark string }{
	{"navigation to the face evaluated", "faceLoaded"},
	{"to install()'s fetch", "fetchCalled"},
	{"to the fetch's response", "fetchHeaders"},
	{"to the first WebAssembly call", "wasmCall"},
	{"compileStreaming (overlapping the download)", "compiled"},
	{"WebAssembly.instantiate", "instantiated"},
	{"Go's start until the module is ready (runtime, package init, main)", "installed"},
	{"the first create()", "created"},
	{"the first prompt()", "answer"},
}

// waitStart waits for the page's first answer and returns when it came (ms since
// navigation) and the longest main-thread task before it.
func waitStart(b *testing.B, ctx context.Context) startTimes {
	b.Helper()
	st, err := chromedp.Run(ctx, chromedp.Evaluate[startTimes](`(async () => {
		const { text, ms } = await started;
		if (text !== "hi") throw new Error("first answer: " + text);
		await new Promise((r) => setTimeout(r, 200)); // long tasks are reported late
		let longest = 0;
		for (const t of longTasks) if (t.start < ms) longest = Math.max(longest, t.duration);
		const marks = globalThis.startMarks ? { ...startMarks, answer: ms } : null;
		// How much of the compile phase the page's main thread spent in long tasks.
		let busy = 0;
		if (marks?.compiled !== undefined) {
			for (const t of longTasks) busy += Math.max(0, Math.min(t.start + t.duration, marks.compiled) - Math.max(t.start, marks.wasmCall));
		}
		return { Ms: ms, Longest: longest, Compile: globalThis.compileMs ?? 0, CompileBusy: busy, Marks: marks };
	})()`, chromedp.EvalAwaitPromise))
	require.NoError(b, err)
	return st
}

// table collects every figure's samples and prints the comparison.
type table struct {
	rounds   int
	browser  string
	samples  map[string][]float64
	sdkBytes float64
	modBytes float64
	modParts string
}

func (t *table) add(key string, v float64) {
	if t.samples == nil {
		t.samples = map[string][]float64{}
	}
	t.samples[key] = append(t.samples[key], v)
}

func (t *table) median(key string) float64 { return browsertest.Median(t.samples[key]) }

// transfer records what each side ships, brotli -q 11 file by file, as a server with
// brotli would send it: the SDK's bundle (no mock), and the module's .wasm and the face
// bundled as the SDK is (Go's wasm_exec.js inside it).
func (t *table) transfer(b *testing.B, ship, wasm, face string) {
	b.Helper()
	t.sdkBytes = brotliSize(b, ship)
	var parts []string
	for _, f := range []string{wasm, face} {
		n := brotliSize(b, f)
		t.modBytes += n
		parts = append(parts, fmt.Sprintf("%s %.0f", filepath.Base(f), n))
	}
	t.modParts = strings.Join(parts, ", ")
}

func brotliSize(b *testing.B, path string) float64 {
	b.Helper()
	out, err := exec.Command("brotli", "-q", "11", "-c", path).Output()
	require.NoError(b, err, "peerbench: brotli %s (make deps installs it)", path)
	return float64(len(out))
}

// figure is one row: the sample keys of each side, the unit, the target.
type figure struct {
	name, sdk, module, unit, target, metric string
}

func (t *table) figures() []figure {
	var fs []figure
	for _, n := range loopLengths {
		fs = append(fs, figure{fmt.Sprintf("closed-loop step, %d-step loop", n), fmt.Sprintf("step-%d-sdk", n), fmt.Sprintf("step-%d-module", n), "µs", "≤ 0.5×", fmt.Sprintf("step%d-ratio", n)})
	}
	return append(fs,
		figure{"10,000 messages: SDK one call / module create({initialPrompts})", "history-sdk", "history-module", "ms", "≤ 0.5×", "history-ratio"},
		figure{"then one prompt on that session", "", "history-prompt", "ms", "≤ 1 ms", ""},
		figure{"navigation to first answer, first visit (fresh profile)", "cold-sdk", "cold-module", "ms", "≤ 1.2×", "cold-ratio"},
		figure{"the same, repeat visit (HTTP cache)", "warm-sdk", "warm-module", "ms", "≤ 1.5×", "warm-ratio"},
		figure{"first visit, the face as plain files (no bundler: a request per file)", "cold-sdk", "cold-plain", "ms", "", "cold-plain-ratio"},
		figure{"repeat visit, the same", "warm-sdk", "warm-plain", "ms", "", "warm-plain-ratio"},
		figure{"first visit, a Go module that only calls the page back (the standard toolchain's floor)", "cold-sdk", "cold-bare", "ms", "", "cold-bare-ratio"},
		figure{"repeat visit, the same", "warm-sdk", "warm-bare", "ms", "", "warm-bare-ratio"},
		figure{"longest main-thread task before the first answer, first visit", "longtask-sdk", "longtask-module", "ms", "≤ 16 ms (worker mode)", "longtask-ratio"},
		figure{"the same, repeat visit", "warmlongtask-sdk", "warmlongtask-module", "ms", "≤ 16 ms (worker mode)", ""},
	)
}

// perRound is the median and range of module[i] ÷ sdk[i] over the rounds: both sides of a
// round run back to back, so a round's ratio is not moved by what the machine did between
// rounds, which moves each side's own median (the SDK's by half from run to run).
func (t *table) perRound(sdk, module string) string {
	xs, ys := t.samples[sdk], t.samples[module]
	if len(xs) == 0 || len(xs) != len(ys) {
		return ""
	}
	var rs []float64
	for i := range xs {
		if xs[i] > 0 {
			rs = append(rs, ys[i]/xs[i])
		}
	}
	if len(rs) == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", browsertest.Median(rs), slices.Min(rs), slices.Max(rs))
}

// cell is a figure's median with its range over the rounds.
func (t *table) cell(key, unit string) string {
	xs := t.samples[key]
	if len(xs) == 0 {
		return "—"
	}
	scale := 1.0
	if unit == "µs" {
		scale = 1000
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	f := func(v float64) string {
		v *= scale
		if v >= 100 {
			return fmt.Sprintf("%.0f", v)
		}
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%s %s (%s–%s)", f(t.median(key)), unit, f(lo), f(hi))
}

func (t *table) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "\nmake bench-peers: the module against the AI SDK (ai 6.0.326, zod 4.1.12), %s, one page,\n", t.browser)
	fmt.Fprintf(&s, "%d interleaved rounds after one warm-up; medians (range); ratio = module ÷ SDK, below 1 the module is faster;\n", t.rounds)
	s.WriteString("per round = the median (range) of each round's own ratio, its two sides measured back to back\n\n")
	s.WriteString("| figure | AI SDK | this module | ratio | per round | target |\n|---|---|---|---|---|---|\n")
	for _, f := range t.figures() {
		ratio := ""
		if f.sdk != "" && t.median(f.sdk) > 0 {
			ratio = fmt.Sprintf("%.2f×", t.median(f.module)/t.median(f.sdk))
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s |\n", f.name, t.cell(f.sdk, f.unit), t.cell(f.module, f.unit), ratio, t.perRound(f.sdk, f.module), f.target)
	}
	fmt.Fprintf(&s, "| transfer, brotli -q 11 | %.0f B | %.0f B | %.2f× |  | the .wasm within the Makefile's SIZE_BUDGET (make size) |\n", t.sdkBytes, t.modBytes, t.modBytes/t.sdkBytes)
	fmt.Fprintf(&s, "\nthe module's transfer: %s\n", t.modParts)
	for _, side := range []string{"module", "plain"} {
		fmt.Fprintf(&s, "compiling and instantiating (from the first WebAssembly call to the instance; compileStreaming overlaps the download), %s page: first visit %s, repeat visit %s\n",
			side, t.cell("compile-cold-"+side, "ms"), t.cell("compile-warm-"+side, "ms"))
	}
	if len(t.samples["phase-cold-answer-module"]) > 0 {
		s.WriteString("\nwhere the start goes, the module page beside the floor's (medians of each phase, ms; each from the end of the one before;\n")
		s.WriteString("the floor's page imports wasm_exec.js where the module's imports the face, and has no create() or prompt()):\n\n")
		s.WriteString("| phase | first visit, module | floor | repeat visit, module | floor |\n|---|---|---|---|---|\n")
		for _, p := range startPhases {
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", p.name,
				t.cell("phase-cold-"+p.mark+"-module", "ms"), t.cell("phase-cold-"+p.mark+"-bare", "ms"),
				t.cell("phase-warm-"+p.mark+"-module", "ms"), t.cell("phase-warm-"+p.mark+"-bare", "ms"))
		}
		fmt.Fprintf(&s, "| of the compile, the main thread busy (long tasks) | %s | %s | %s | %s |\n",
			t.cell("phase-cold-busy-module", "ms"), t.cell("phase-cold-busy-bare", "ms"), t.cell("phase-warm-busy-module", "ms"), t.cell("phase-warm-busy-bare", "ms"))
		fmt.Fprintf(&s, "| **to the first answer** | %s | %s | %s | %s |\n",
			t.cell("cold-module", "ms"), t.cell("cold-bare", "ms"), t.cell("warm-module", "ms"), t.cell("warm-bare", "ms"))
		fmt.Fprintf(&s, "\nthe module ÷ the floor (DESIGN.md §5: ≤ 1.3×), per round: first visit %s, repeat visit %s\n",
			t.perRound("cold-bare", "cold-module"), t.perRound("warm-bare", "warm-module"))
	}
	return s.String()
}
