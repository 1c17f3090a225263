//go:build !js

package peerbench

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

var (
	compareBase  = flag.String("compare.base", "", "BenchmarkCompare: a directory holding one build of the module (make module BUILD=dir): langmodel.wasm, wasm_exec.js and the face's js")
	compareNew   = flag.String("compare.new", "", "BenchmarkCompare: the other build's directory")
	compareNames = flag.String("compare.names", "base,new", "BenchmarkCompare: the two builds' names, comma-separated, for the table")
	compareSteps = flag.String("compare.steps", "1,10,100,1000", "BenchmarkCompare: the loop lengths timed")
	compareReps  = flag.Int("compare.reps", 4, "BenchmarkCompare: batches a build times for each step figure, and create()s on 10,000 messages, in a round, alternated (a b b a a b …); the fastest counts")
	compareModes = flag.String("compare.modes", "page,worker", "BenchmarkCompare: the modes timed")
	compareAll   = flag.Bool("compare.all", true, "BenchmarkCompare: false times the steps alone (no create() on 10,000 messages, no install())")
)

// BenchmarkCompare prints the table of `make bench-compare`: two builds of the module (two
// directories as make module fills them, each with its own face) in one headless Chromium,
// as alternated pairs: each round times every figure on both builds back to back, the
// build that goes first alternating by round. Figures: the closed-loop step at each loop
// length in page and worker mode, each timed as a batch of about 200 steps (a 1,000-step
// loop alone), since performance.now() is coarsened to 100 µs in a page that is not
// cross-origin isolated, -compare.reps batches a build alternated a b b a, the fastest
// counting, with the browser's CPU time beside the page's clock (treeCPU); create() on 10,000 messages; install() to the first answer in a
// fresh page, compiling afresh (every fetch of the .wasm gets a custom section of its own,
// so V8 reuses no earlier compilation); and the .wasm's brotli size. Each build keeps its
// pages for the whole run (one per mode, after one untimed round of each loop); the table
// gives each build's median (range) and the per-round ratio new ÷ base, median (range).
//
//	make bench-compare BASE=<rev>
func BenchmarkCompare(b *testing.B) {
	if *compareBase == "" || *compareNew == "" {
		b.Skip("peerbench: -compare.base and -compare.new name two builds of the module (make bench-compare BASE=<rev>)")
	}
	names := strings.SplitN(*compareNames, ",", 2)
	require.Len(b, names, 2, "-compare.names: two names")
	var steps []int
	for _, s := range strings.Split(*compareSteps, ",") {
		var n int
		_, err := fmt.Sscan(s, &n)
		require.NoError(b, err, "-compare.steps")
		steps = append(steps, n)
	}
	dirs := []string{*compareBase, *compareNew}
	handlers := map[string]http.Handler{"/peer/bench.js": browsertest.File("bench.js")}
	var fetches atomic.Int64
	for i, dir := range dirs {
		wasm, err := os.ReadFile(filepath.Join(dir, "langmodel.wasm"))
		require.NoError(b, err, "peerbench: a build of the module (make module BUILD=%s)", dir)
		prefix := fmt.Sprintf("/b%d/", i)
		handlers[prefix] = http.StripPrefix(prefix, http.FileServer(http.Dir(dir)))
		handlers[prefix+"langmodel.wasm"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/wasm")
			w.Write(withSection(wasm, fetches.Add(1)))
		})
	}
	base := browsertest.Serve(b, "", handlers)
	br := browsertest.Shared(b)
	ctx, cancel := context.WithTimeout(b.Context(), 50*time.Minute)
	defer cancel()

	modes := strings.Split(*compareModes, ",")
	loops := strings.ReplaceAll(fmt.Sprint(steps), " ", ", ")
	var t table
	for b.Loop() {
		t = table{rounds: *rounds, browser: br.Version}
		pages := map[string]*browsertest.Page{}
		for i := range dirs {
			for _, mode := range modes {
				p := br.Open(b, base+"/")
				require.NoError(b, p.Eval(ctx, fmt.Sprintf(`
					globalThis.bench = await import("/peer/bench.js");
					const lm = await import("/b%[1]d/language-model.js");
					await lm.install({ wasm: "/b%[1]d/langmodel.wasm", worker: %[2]t });
					globalThis.LM = lm.LanguageModel ?? globalThis.LanguageModel;
					globalThis.messages = bench.history(10000);
					// prep creates k sessions of n-step loops (untimed), run prompts them.
					globalThis.prep = async (n, k) => {
						const turns = [];
						for (let i = 0; i < n; i++) turns.push({ calls: [{ name: "noop", arguments: {} }] });
						turns.push({ text: "done" });
						globalThis.sessions = [];
						for (let i = 0; i < k; i++) sessions.push(await LM.create({ backend: { kind: "scripted", turns },
							tools: [{ name: "noop", description: "does nothing", inputSchema: { type: "object" }, execute: async () => "" }],
							toolUseConfig: { maxToolCalls: n, maxRepeatedCalls: 0 } })); // one call, repeated: no repeat stop (a build before it ignores the field)
					};
					globalThis.run = async (n) => {
						const t0 = performance.now();
						for (const s of sessions) if ((await s.prompt("go")) !== "done") throw new Error("not done");
						const ms = (performance.now() - t0) / (n * sessions.length);
						for (const s of sessions) s.destroy();
						return ms;
					};
					for (const n of %[3]s) await bench.moduleLoop(LM, n, 1);`, i, mode == "worker", loops), nil), "%s, %s mode", names[i], mode)
				pages[fmt.Sprint(i, mode)] = p
			}
		}
		for r := range *rounds {
			order := []int{0, 1}
			if r%2 == 1 {
				order = []int{1, 0}
			}
			for _, mode := range modes {
				for _, n := range steps {
					// Batches alternated a b b a a b …, the fastest of each build counting: on
					// a shared machine, load only ever adds time.
					k := (200 + n - 1) / n
					best, bestCPU := [2]float64{}, [2]float64{}
					var seq []int
					for j := range *compareReps {
						if j%2 == 0 {
							seq = append(seq, order...)
						} else {
							seq = append(seq, order[1], order[0])
						}
					}
					for _, i := range seq {
						p := pages[fmt.Sprint(i, mode)]
						require.NoError(b, p.Eval(ctx, fmt.Sprintf(`await prep(%d, %d)`, n, k), nil))
						var ms float64
						c0 := treeCPU()
						require.NoError(b, p.Eval(ctx, fmt.Sprintf(`return run(%d)`, n), &ms))
						cpu := float64(cpuSince(c0)) / 1e6 / float64(n*k)
						if best[i] == 0 || ms < best[i] {
							best[i] = ms
						}
						if bestCPU[i] == 0 || cpu < bestCPU[i] {
							bestCPU[i] = cpu
						}
					}
					for i := range dirs {
						t.add(fmt.Sprintf("step-%d-%s-%d", n, mode, i), best[i])
						t.add(fmt.Sprintf("cpu-%d-%s-%d", n, mode, i), bestCPU[i])
					}
				}
				if !*compareAll {
					continue
				}
				// create() alternated a b b a a b … as the steps are, the fastest counting: one
				// create() a round moved with whichever build a garbage collection fell on.
				var bestCreate [2]float64
				for j := range *compareReps {
					seq := order
					if j%2 == 1 {
						seq = []int{order[1], order[0]}
					}
					for _, i := range seq {
						var got struct{ Create float64 }
						require.NoError(b, pages[fmt.Sprint(i, mode)].Eval(ctx, `return bench.moduleHistory(LM, messages)`, &got))
						if bestCreate[i] == 0 || got.Create < bestCreate[i] {
							bestCreate[i] = got.Create
						}
					}
				}
				for i := range dirs {
					t.add(fmt.Sprintf("history-%s-%d", mode, i), bestCreate[i])
				}
				for _, i := range order {
					p := br.Open(b, base+"/")
					var ms float64
					require.NoError(b, p.Eval(ctx, fmt.Sprintf(`
						const lm = await import("/b%[1]d/language-model.js");
						const t0 = performance.now();
						await lm.install({ wasm: "/b%[1]d/langmodel.wasm", worker: %[2]t });
						const LM = lm.LanguageModel ?? globalThis.LanguageModel;
						const s = await LM.create({ backend: { kind: "scripted", turns: [{ text: "hi" }] } });
						if (await s.prompt("hello") !== "hi") throw new Error("no first answer");
						return performance.now() - t0;`, i, mode == "worker"), &ms))
					p.Close()
					t.add(fmt.Sprintf("install-%s-%d", mode, i), ms)
				}
			}
		}
	}
	// The sizes, after the timing (brotli -q 11 takes ~20 s a build, on the same cores).
	var sizes [2]float64
	for i, dir := range dirs {
		sizes[i] = brotliSize(b, filepath.Join(dir, "langmodel.wasm"))
	}

	var s strings.Builder
	fmt.Fprintf(&s, "\nmake bench-compare: %s (base) against %s (new), %s, %d alternated rounds after one warm-up;\n", names[0], names[1], t.browser, t.rounds)
	s.WriteString("medians (range); per round = the median (range) of each round's own ratio new ÷ base, both builds measured back to back\n\n")
	fmt.Fprintf(&s, "| figure | %s | %s | ratio | per round |\n|---|---|---|---|---|\n", names[0], names[1])
	row := func(name, key, unit string) {
		k0, k1 := key+"-0", key+"-1"
		ratio := ""
		if m := t.median(k0); m > 0 {
			ratio = fmt.Sprintf("%.2f×", t.median(k1)/m)
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", name, t.cell(k0, unit), t.cell(k1, unit), ratio, t.perRound(k0, k1))
		if m := t.median(k0); m > 0 {
			b.ReportMetric(t.median(k1)/m, strings.ReplaceAll(key, "-", "")+"-ratio")
		}
	}
	for _, mode := range modes {
		for _, n := range steps {
			row(fmt.Sprintf("closed-loop step, %d-step loop, %s", n, mode), fmt.Sprintf("step-%d-%s", n, mode), "µs")
			row(fmt.Sprintf("the same, the browser's CPU time a step"), fmt.Sprintf("cpu-%d-%s", n, mode), "µs")
		}
		row("create() on 10,000 messages, "+mode, "history-"+mode, "ms")
		row("install() to first answer, fresh page, compiled afresh, "+mode, "install-"+mode, "ms")
	}
	fmt.Fprintf(&s, "| langmodel.wasm, brotli -q 11 | %.0f B | %.0f B | %.4f× | |\n", sizes[0], sizes[1], sizes[1]/sizes[0])
	fmt.Print(s.String())
	b.ReportMetric(0, "ns/op")
}

// withSection returns wasm with a custom section appended that holds n, so that no two
// fetches give V8 the same bytes and none reuses another's compilation.
func withSection(wasm []byte, n int64) []byte {
	name := []byte("peerbench")
	payload := binary.AppendUvarint(append([]byte{byte(len(name))}, name...), uint64(n))
	var out bytes.Buffer
	out.Grow(len(wasm) + len(payload) + 6)
	out.Write(wasm)
	out.WriteByte(0) // custom section
	out.Write(binary.AppendUvarint(nil, uint64(len(payload))))
	out.Write(payload)
	return out.Bytes()
}

// treeCPU is the CPU time that this process's descendants (the browser and its renderers,
// GPU and utility processes) have run, summed over their threads (/proc/<pid>/task/*/
// schedstat): the work a batch did, without the time it waited for a core that other
// processes held, which wall time counts on a shared machine. Threads that exited are not
// counted, nor is anything outside Linux (it is then 0). cpuSince gives the time since an
// earlier reading, over the threads of both.
func treeCPU() map[string]int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		var state string
		var ppid int
		if _, err := fmt.Sscan(string(rest), &state, &ppid); err == nil {
			parent[pid] = ppid
		}
	}
	self := os.Getpid()
	under := func(pid int) bool {
		for i := 0; i < 64 && pid > 1; i++ {
			if pid = parent[pid]; pid == self {
				return true
			}
		}
		return false
	}
	total := map[string]int64{}
	for pid := range parent {
		if !under(pid) {
			continue
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
		for _, f := range tasks {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var ns int64
			if _, err := fmt.Sscan(string(data), &ns); err == nil {
				total[f] = ns
			}
		}
	}
	return total
}

func cpuSince(before map[string]int64) time.Duration {
	var d int64
	for f, ns := range treeCPU() {
		if ns0, ok := before[f]; ok {
			d += ns - ns0
		}
	}
	return time.Duration(d)
}
