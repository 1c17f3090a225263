//go:build !js

package peerbench

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// BenchmarkPeersWorker prints the worker mode's table of `make bench-peers` (its -bench
// pattern, Peers, runs it after BenchmarkPeers): the module on the page against the
// module in a Worker (install({worker: true})), interleaved, in one headless Chromium:
// the closed-loop step at 1, 10, 100 and 1,000-step loops (batches of about 200 steps, one
// 1,000-step loop) and a 10,000-message history (the same
// bench.js workloads; in a Worker the history also crosses to the page's copy), and the
// longest main-thread task during install() and during 100-step loops, as the
// PerformanceObserver's long tasks (over 50 ms; none is 0) and as a heartbeat's longest
// gap (below 50 ms too). Each round opens a fresh page per mode, so
// that every round measures an install. Run it alone:
//
//	go test -run '^$' -bench PeersWorker -benchtime 1x ./internal/integration_test/peerbench/
func BenchmarkPeersWorker(b *testing.B) {
	wasm := browsertest.BuildWasm(b, "../../../wasm/cmd/langmodel")
	execJS := browsertest.WasmExecJS(b)
	base := browsertest.Serve(b, "", map[string]http.Handler{
		"/langmodel.wasm":    browsertest.File(wasm),
		"/wasm_exec.js":      browsertest.File(execJS),
		"/js/":               http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
		"/js/langmodel.wasm": browsertest.File(wasm),
		"/js/wasm_exec.js":   browsertest.File(execJS),
		"/peer/bench.js":     browsertest.File("bench.js"),
	})
	br := browsertest.Shared(b)
	ctx, cancel := context.WithTimeout(b.Context(), 20*time.Minute)
	defer cancel()
	var t workerTable
	for b.Loop() {
		t = workerTable{table{rounds: *rounds, browser: br.Version}}
		for r := range *rounds {
			modes := []string{"page", "worker"}
			if r%2 == 1 {
				modes = []string{"worker", "page"}
			}
			for _, mode := range modes {
				t.round(b, ctx, br.Open(b, base+"/"), mode)
			}
		}
	}
	fmt.Print(t.String())
	for _, n := range workerLoops {
		if p := t.median(fmt.Sprintf("step-%d-page", n)); p > 0 {
			b.ReportMetric(t.median(fmt.Sprintf("step-%d-worker", n))/p, fmt.Sprintf("worker-step%d-ratio", n))
		}
	}
	b.ReportMetric(t.median("longtask-install-worker"), "worker-install-longtask-ms")
	b.ReportMetric(t.median("longtask-loop-worker"), "worker-loop-longtask-ms")
	b.ReportMetric(t.median("gap-install-worker"), "worker-install-stall-ms")
	b.ReportMetric(t.median("gap-loop-worker"), "worker-loop-stall-ms")
	b.ReportMetric(0, "ns/op")
}

var workerLoops = []int{1, 10, 100, 1000}

// workerRound is a page's script for one round: a long-task observer, install() in the
// mode, one untimed loop of each length (V8 compiles the code up first), then the timed
// loops, about 200 steps a figure. Long tasks are attributed to the window they start in;
// the script yields to the event loop between phases, since a loop whose every answer comes
// in a microtask (the module on the page, a scripted model, a tool that answers at once) is
// one task from start to end.
const workerRound = `
	const worker = %t;
	const tasks = [];
	new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e); }).observe({ type: "longtask", buffered: true });
	const idle = () => new Promise((r) => setTimeout(r, 20)); // ends the task: phases never share one
	const longest = (from, to) => Math.max(0, ...tasks.filter((e) => e.startTime >= from && e.startTime < to).map((e) => e.duration));
	// heartbeat measures the longest the main thread went without running a task: a
	// MessageChannel that posts to itself runs once per turn of the event loop.
	const heartbeat = () => {
		const { port1, port2 } = new MessageChannel();
		let last = performance.now(), gap = 0, on = true;
		port1.onmessage = () => { const now = performance.now(); gap = Math.max(gap, now - last); last = now; if (on) port2.postMessage(0); };
		port2.postMessage(0);
		return () => { on = false; port1.close(); return Math.max(gap, performance.now() - last); };
	};
	const bench = await import("/peer/bench.js");
	let beat = heartbeat();
	const lm = await import("/js/language-model.js"); // the same in both modes: the page's own module loading
	const importGap = beat();
	await idle();
	beat = heartbeat();
	const i0 = performance.now();
	await lm.install({ wasm: "/langmodel.wasm", worker, globals: "never" });
	const i1 = performance.now();
	const installGap = beat();
	await idle();
	for (const n of %[2]s) await bench.moduleLoop(lm.LanguageModel, n, 1);
	await idle();
	beat = heartbeat();
	await bench.moduleLoop(lm.LanguageModel, 100, 1);
	const loopGap = beat();
	const steps = {};
	let l0, l1;
	for (const n of %[2]s) {
		await idle();
		if (n === 100) l0 = performance.now();
		steps[n] = await bench.moduleLoop(lm.LanguageModel, n, Math.ceil(200 / n));
		if (n === 100) l1 = performance.now();
	}
	await idle();
	// The floor of a step in a Worker: a message to a Worker that only echoes it, and back,
	// 200 times in a row (ms each, as the steps).
	const echo = new Worker(URL.createObjectURL(new Blob(["onmessage = (e) => postMessage(e.data)"], { type: "text/javascript" })));
	const roundTrip = () => new Promise((r) => { echo.onmessage = r; echo.postMessage("[]"); });
	await roundTrip();
	const e0 = performance.now();
	for (let i = 0; i < 200; i++) await roundTrip();
	const echoMs = (performance.now() - e0) / 200;
	echo.terminate();
	await idle();
	const history = await bench.moduleHistory(lm.LanguageModel, bench.history(10000));
	await new Promise((r) => setTimeout(r, 200)); // long tasks are reported late
	return { install: longest(i0, i1), loop: longest(l0, l1), importGap, installGap, loopGap, installMs: i1 - i0, steps, history, echoMs };`

func (t *workerTable) round(b *testing.B, ctx context.Context, p *browsertest.Page, mode string) {
	b.Helper()
	var got struct {
		Install, Loop, ImportGap, InstallGap, LoopGap, InstallMs, EchoMs float64
		Steps                                                            map[string]float64
		History                                                          struct{ Create, Prompt float64 }
	}
	loops := strings.ReplaceAll(fmt.Sprint(workerLoops), " ", ", ")
	require.NoError(b, p.Eval(ctx, fmt.Sprintf(workerRound, mode == "worker", loops), &got))
	t.add("longtask-install-"+mode, got.Install)
	t.add("longtask-loop-"+mode, got.Loop)
	t.add("install-"+mode, got.InstallMs)
	t.add("gap-import-"+mode, got.ImportGap)
	t.add("gap-install-"+mode, got.InstallGap)
	t.add("gap-loop-"+mode, got.LoopGap)
	t.add("history-create-"+mode, got.History.Create)
	t.add("history-prompt-"+mode, got.History.Prompt)
	t.add("echo", got.EchoMs)
	for _, n := range workerLoops {
		t.add(fmt.Sprintf("step-%d-%s", n, mode), got.Steps[fmt.Sprint(n)])
	}
}

// workerTable is table's samples with the worker mode's rows.
type workerTable struct{ table }

func (t *workerTable) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "\nmake bench-peers, worker mode: the module on the page against the module in a Worker, %s,\n", t.browser)
	fmt.Fprintf(&s, "%d interleaved rounds, a fresh page per round and mode; medians (range); ratio = worker ÷ page\n\n", t.rounds)
	s.WriteString("| figure | on the page | in a Worker | ratio | target |\n|---|---|---|---|---|\n")
	rows := []struct{ name, key, unit, target string }{}
	for _, n := range workerLoops {
		rows = append(rows, struct{ name, key, unit, target string }{fmt.Sprintf("closed-loop step, %d-step loop", n), fmt.Sprintf("step-%d", n), "µs", ""})
	}
	rows = append(rows,
		struct{ name, key, unit, target string }{"create({initialPrompts}) on 10,000 messages", "history-create", "ms", ""},
		struct{ name, key, unit, target string }{"then one prompt on that session", "history-prompt", "ms", ""},
		struct{ name, key, unit, target string }{"install(), called to resolved", "install", "ms", ""},
		struct{ name, key, unit, target string }{"longest main-thread task during install() (long tasks, over 50 ms)", "longtask-install", "ms", "≤ 16 ms in a Worker"},
		struct{ name, key, unit, target string }{"longest main-thread task during 100-step loops (long tasks, over 50 ms)", "longtask-loop", "ms", "≤ 16 ms in a Worker"},
		struct{ name, key, unit, target string }{"longest main-thread stall while importing the face, before install() (heartbeat)", "gap-import", "ms", ""},
		struct{ name, key, unit, target string }{"longest main-thread stall during install() (heartbeat)", "gap-install", "ms", "≤ 16 ms in a Worker"},
		struct{ name, key, unit, target string }{"longest main-thread stall during a 100-step loop (heartbeat)", "gap-loop", "ms", "≤ 16 ms in a Worker"},
	)
	for _, r := range rows {
		ratio := ""
		if p := t.median(r.key + "-page"); p > 0 {
			ratio = fmt.Sprintf("%.2f×", t.median(r.key+"-worker")/p)
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", r.name, t.cell(r.key+"-page", r.unit), t.cell(r.key+"-worker", r.unit), ratio, r.target)
	}
	// A prompt whose loop takes n steps crosses to the Worker and back n+1 times: the
	// prompt to the first tool call, each result to the next call, the last to the answer.
	fmt.Fprintf(&s, "\nthe floor of a step in a Worker: a postMessage round trip to a Worker that only echoes, %s;\n", t.cell("echo", "µs"))
	s.WriteString("a prompt of n steps makes n+1 of them, so per step at least:")
	for _, n := range workerLoops {
		fmt.Fprintf(&s, " %.0f µs at %d;", t.median("echo")*1000*float64(n+1)/float64(n), n)
	}
	s.WriteString("\n")
	s.WriteString("\nLong tasks are the PerformanceObserver's (over 50 ms only: 0 means none). The heartbeat is the longest\n" +
		"time between two turns of the main thread's event loop (a MessageChannel posting to itself), which sees\n" +
		"stalls under 50 ms too; it runs in phases of its own (install, one more 100-step loop), not the timed ones.\n")
	return s.String()
}
