//go:build !js

package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// soakPrelude is browserPrelude, keeping the module's instance (globalThis.__soakInstance)
// so that the soak can read the size of its linear memory.
const soakPrelude = `
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async function (...args) {
	const r = await instantiate.apply(this, args);
	globalThis.__soakInstance = r.instance;
	return r;
};
` + moduletest.BrowserPrelude + `
WebAssembly.instantiate = instantiate;
globalThis.wasmBytes = () => __soakInstance.exports.mem.buffer.byteLength;
globalThis.sessions = async (n) => {
	for (let i = 0; i < n; i++) {
		const s = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "answer " + i }] } });
		if (await s.prompt("question " + i) !== "answer " + i) throw new Error("wrong answer at " + i);
		s.destroy();
	}
};
globalThis.closedLoop = async (steps) => {
	const turns = [];
	for (let i = 0; i < steps; i++) turns.push({ calls: [{ name: "noop", arguments: { i } }] });
	turns.push({ text: "done" });
	const s = await lm.LanguageModel.create({
		backend: { kind: "scripted", turns, window: 1000000 }, // the loop's own steps are never evicted
		tools: [{ name: "noop", description: "does nothing", inputSchema: { type: "object" }, execute: (a) => "ok " + a.i }],
		toolUseConfig: { maxToolCalls: steps, maxRepeatedCalls: 0 }, // one call, repeated: the stop would end the loop
	});
	let calls = 0;
	s.ontoolresult = () => calls++;
	if (await s.prompt("go") !== "done") throw new Error("not done");
	if (calls !== steps) throw new Error(calls + " tool results, want " + steps);
	s.destroy();
};
`

// soakReading is one reading between phases, after forced garbage collections.
type soakReading struct {
	phase string
	heap  browsertest.HeapUsage
	wasm  float64 // the module's linear memory, bytes
}

// BenchmarkBrowser_Soak (`make soak`): in headless Chromium, 10,000 sessions
// (create → prompt → destroy), two 10,000-step closed loops (one session each, destroyed
// after), and 10,000 sessions again, with full garbage collections between phases. It
// reports the page's JS heap and the module's linear memory after each phase, against
// where they stood after a warm-up of the same work (2,000 sessions and one 10,000-step
// loop: V8 compiles, and the linear memory, which wasm can grow but never shrink, reaches
// the size the work needs). It fails when either grows with the work: a reading more than
// 5% over the warm-up's (for the JS heap, 5% or 256 KB: on a blank page the heap is under
// 2 MB, and V8's own caches move it by up to 0.2 MB from one phase to the next), or a
// repeated phase more than 5% over its first run.
func BenchmarkBrowser_Soak(b *testing.B) {
	const sessions, steps, tolerance, heapSlack = 10_000, 10_000, 0.05, 256 << 10
	p := browsertest.Shared(b).Open(b, moduletest.Serve(b, "")+"/")
	require.NoError(b, p.Eval(b.Context(), soakPrelude, nil))
	for b.Loop() {
		read := func(phase, js string) soakReading {
			if js != "" {
				require.NoError(b, p.Eval(b.Context(), js, nil), phase)
			}
			h, err := p.CollectGarbage(b.Context())
			require.NoError(b, err)
			var w float64
			require.NoError(b, p.Eval(b.Context(), `return wasmBytes();`, &w))
			b.Logf("%-32s JS heap used %6.3f MB (total %6.3f, backing stores %6.3f)  linear memory %6.2f MB",
				phase, h.Used/1e6, h.Total/1e6, h.Backing/1e6, w/1e6)
			return soakReading{phase, h, w}
		}
		read("installed", "")
		start := read("warm-up", fmt.Sprintf(`await sessions(2000); await closedLoop(%d);`, steps))
		s1 := read(fmt.Sprintf("%d sessions", sessions), fmt.Sprintf(`await sessions(%d);`, sessions))
		l1 := read(fmt.Sprintf("a %d-step closed loop", steps), fmt.Sprintf(`await closedLoop(%d);`, steps))
		l2 := read(fmt.Sprintf("another %d-step closed loop", steps), fmt.Sprintf(`await closedLoop(%d);`, steps))
		s2 := read(fmt.Sprintf("%d more sessions", sessions), fmt.Sprintf(`await sessions(%d);`, sessions))

		b.ReportMetric(start.heap.Used/1e6, "MB-heap-start")
		b.ReportMetric(start.wasm/1e6, "MB-wasm-start")
		for _, r := range []soakReading{s1, l1, l2, s2} {
			heap, wasm := r.heap.Used/start.heap.Used-1, r.wasm/start.wasm-1
			unit := strings.NewReplacer(",", "", " ", "-").Replace(r.phase)
			b.ReportMetric(100*heap, "%heap-after-"+unit)
			b.ReportMetric(100*wasm, "%wasm-after-"+unit)
			require.LessOrEqual(b, r.heap.Used, max(start.heap.Used*(1+tolerance), start.heap.Used+heapSlack),
				"the JS heap after %s: %.3f MB, %.1f%% over the warm-up's %.3f MB", r.phase, r.heap.Used/1e6, 100*heap, start.heap.Used/1e6)
			require.LessOrEqual(b, wasm, tolerance, "the linear memory after %s: %.2f MB, %.1f%% over the warm-up's %.2f MB",
				r.phase, r.wasm/1e6, 100*wasm, start.wasm/1e6)
		}
		for _, pair := range [][2]soakReading{{s1, s2}, {l1, l2}} {
			first, again := pair[0], pair[1]
			require.LessOrEqual(b, again.heap.Used, first.heap.Used*(1+tolerance), "the JS heap grew from %s (%.3f MB) to %s (%.3f MB)",
				first.phase, first.heap.Used/1e6, again.phase, again.heap.Used/1e6)
			require.LessOrEqual(b, again.wasm, first.wasm*(1+tolerance), "the linear memory grew from %s to %s", first.phase, again.phase)
		}
		b.ReportMetric(0, "ns/op")
	}
}
