//go:build !js

package peerbench

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

var (
	profSteps   = flag.Int("peers.profile", 100, "BenchmarkPeersProfile: the loop length profiled")
	profBatches = flag.Int("peers.profilebatches", 10, "BenchmarkPeersProfile: how many batches of about 1,000 steps are profiled")
	profWorker  = flag.Bool("peers.profileworker", false, "BenchmarkPeersProfile: the module in a Worker (install({worker: true})), profiled on both threads")
	profDir     = flag.String("peers.profiledir", "", "BenchmarkPeersProfile: profile this build instead (a directory with langmodel.wasm, built keeping function names, and the face's js)")
)

// BenchmarkPeersProfile profiles the module's closed loop in Chromium (V8's sampling
// profiler through CDP, on a build that keeps function names) and prints where the time
// goes: by file (wasm is the Go side), then the functions by self and inclusive time. The
// profile to read before cutting crossings (-peers.profile=n profiles n-step
// loops instead of 100-step ones). It profiles -peers.profilebatches batches of about
// 1,000 steps, each batch's sessions created before the profiler starts (bench.moduleRun
// destroys them at its end, inside the profile: #destroy in the listing): one batch of
// more sessions would profile Go's heap growing to hold them all. -peers.profileworker
// profiles worker mode: the Worker's thread, where the module runs, and the page's, each
// on its own:
//
//	go test -run '^$' -bench PeersProfile -benchtime 1x ./internal/integration_test/peerbench/
func BenchmarkPeersProfile(b *testing.B) {
	ctx, ev := profilePage(b)
	ev(fmt.Sprintf(`globalThis.bench = await import("/peer/bench.js"); globalThis.lm = await import("/js/language-model.js"); await lm.install({ wasm: "/langmodel.wasm", worker: %t, globals: "always" }); return 0`, *profWorker))
	for range 5 { // V8 tiers the code up first
		ev(fmt.Sprintf(`return bench.moduleLoop(LanguageModel, %d, %d)`, *profSteps, max(1, 200 / *profSteps)))
	}
	threads := []profiled{{"the page", ctx}}
	if *profWorker {
		wctx := workerTarget(b, ctx)
		threads = []profiled{{"the Worker", wctx}, {"the page", ctx}}
	}
	// The sessions are created before the profile starts: a page creates a session once
	// and prompts it, and the step figures time the prompts alone.
	k := max(1, 1000 / *profSteps)
	var us []float64
	cpuProfile(b, threads, *profBatches, func() {
		ev(fmt.Sprintf(`globalThis.sessions = await bench.modulePrep(LanguageModel, %d, %d); return 0`, *profSteps, k))
	}, func() {
		us = append(us, ev(fmt.Sprintf(`return bench.moduleRun(sessions, %d)`, *profSteps))*1000)
	})
	slices.Sort(us)
	fmt.Printf("profiled: %.0f µs/step, the median of %d batches of %d %d-step loops (sampled every 50 µs)\n", us[len(us)/2], len(us), k, *profSteps)
	b.ReportMetric(0, "ns/op")
}

// profilePage opens, in a Chromium of the benchmark's own, a page with bench.js and the
// module built with its function names kept (so that a profile names Go's functions), and
// returns the browser's context and ev, which runs an async function body there and
// returns its number.
func profilePage(b *testing.B) (context.Context, func(js string) float64) {
	out, js := filepath.Join(*profDir, "langmodel.wasm"), *profDir
	if *profDir == "" {
		// The module's own flags (NOINLINE), keeping function names.
		out, js = filepath.Join(b.TempDir(), "lm.wasm"), "../../../js"
		args := []string{"build", "-trimpath"}
		for _, p := range browsertest.NoInline() {
			args = append(args, "-gcflags=langmodel/"+p+"=-l")
		}
		cmd := exec.Command("go", append(args, "-o", out, ".")...)
		cmd.Dir = "../../../wasm/cmd/langmodel"
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		msg, err := cmd.CombinedOutput()
		require.NoError(b, err, string(msg))
	}
	base := browsertest.Serve(b, "", map[string]http.Handler{
		"/langmodel.wasm":  browsertest.File(out),
		"/wasm_exec.js":    browsertest.File(browsertest.WasmExecJS(b)),
		"/js/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(b)), // worker.js imports it beside itself
		"/js/":             http.StripPrefix("/js/", http.FileServer(http.Dir(js))),
		"/peer/bench.js":   browsertest.File("bench.js"),
	})
	ctx, cancel := ownBrowser(b)
	b.Cleanup(cancel)
	_, err := chromedp.Run(ctx, chromedp.Navigate(base+"/"))
	require.NoError(b, err)
	return ctx, func(js string) float64 {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("(async () => {"+js+"})()", chromedp.EvalAwaitPromise))
		require.NoError(b, err)
		return v
	}
}

// printTop prints the n largest shares of hits, largest first.
func printTop(title string, hits map[string]int64, total int64, n int) {
	keys := slices.SortedFunc(maps.Keys(hits), func(a, b string) int { return cmp.Compare(hits[b], hits[a]) })
	fmt.Println(title)
	for _, k := range keys[:min(n, len(keys))] {
		fmt.Printf("%6.2f%% %s\n", 100*float64(hits[k])/float64(total), k)
	}
}

// profiled is a thread cpuProfile profiles: its name and the browser's context for it.
type profiled struct {
	name string
	ctx  context.Context
}

// workerTarget returns the browser's context for the page's one Worker, the module's in
// worker mode, attached to it (CDP's Target domain).
func workerTarget(b *testing.B, ctx context.Context) context.Context {
	infos, err := chromedp.Targets(ctx)
	require.NoError(b, err)
	for _, t := range infos {
		if t.Type == "worker" {
			wctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(t.TargetID))
			b.Cleanup(cancel)
			return wctx
		}
	}
	b.Fatal("the page has no Worker")
	return nil
}

// cpuProfile runs run rounds times under V8's sampling profiler (every 50 µs, through
// CDP) on each of threads, each time after prep, which runs unprofiled (prep may be nil),
// and prints, for each thread, where its time went over all of them: the functions by
// self and inclusive time, then by file (wasm is the Go side).
func cpuProfile(b *testing.B, threads []profiled, rounds int, prep, run func()) {
	for _, t := range threads {
		_, err := chromedp.Call(t.ctx, profiler.Enable, cdp.Empty{})
		require.NoError(b, err)
		_, err = chromedp.Call(t.ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 50})
		require.NoError(b, err)
	}
	profs := make([][]*profiler.Profile, len(threads))
	for range rounds {
		if prep != nil {
			prep()
		}
		for _, t := range threads {
			_, err := chromedp.Call(t.ctx, profiler.Start, cdp.Empty{})
			require.NoError(b, err)
		}
		run()
		for i, t := range threads {
			res, err := chromedp.Call(t.ctx, profiler.Stop, cdp.Empty{})
			require.NoError(b, err)
			profs[i] = append(profs[i], res.Profile)
		}
	}
	for i, t := range threads {
		self, cat, incl := map[string]int64{}, map[string]int64{}, map[string]int64{}
		var total int64
		for _, prof := range profs[i] {
			total += addProfile(prof, self, cat, incl)
		}
		if len(threads) > 1 {
			fmt.Printf("== %s\n", t.name)
		}
		printTop("self time:", self, total, 90)
		printTop("inclusive time:", incl, total, 60)
		printTop("by file (wasm: the Go side):", cat, total, len(cat))
	}
}

// addProfile adds prof's samples to self (by function), cat (by file) and incl (by
// function, counting each sample once in every function on its stack) and returns how
// many samples it had.
func addProfile(prof *profiler.Profile, self, cat, incl map[string]int64) int64 {
	var total int64
	for _, n := range prof.Nodes {
		k := n.CallFrame.FunctionName
		if k == "" {
			k = "(anon " + filepath.Base(n.CallFrame.URL) + fmt.Sprint(":", n.CallFrame.LineNumber) + ")"
		}
		self[k] += n.HitCount
		total += n.HitCount
		u := n.CallFrame.URL
		switch {
		case strings.HasPrefix(u, "wasm://"):
			u = "wasm"
		case u == "":
			u = "native builtins"
			if strings.HasPrefix(n.CallFrame.FunctionName, "(") { // (program), (garbage collector), (idle)
				u = n.CallFrame.FunctionName
			}
		default:
			u = filepath.Base(u)
		}
		cat[u] += n.HitCount
	}
	parent := map[int64]int64{}
	byID := map[int64]*profiler.ProfileNode{}
	for _, n := range prof.Nodes {
		byID[int64(n.ID)] = n
		for _, c := range n.Children {
			parent[int64(c)] = int64(n.ID)
		}
	}
	for _, n := range prof.Nodes {
		if n.HitCount == 0 {
			continue
		}
		seen := map[string]bool{}
		for id := int64(n.ID); ; {
			nn := byID[id]
			f := nn.CallFrame.FunctionName
			if !seen[f] {
				seen[f] = true
				incl[f] += n.HitCount
			}
			p, ok := parent[id]
			if !ok {
				break
			}
			id = p
		}
	}
	return total
}
