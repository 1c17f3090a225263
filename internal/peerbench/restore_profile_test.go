//go:build !js

package peerbench

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
)

var restoreCalls = flag.Bool("peers.calls", true, "BenchmarkRestoreProfile: a history with tool calls (false: text only)")

// BenchmarkRestoreProfile profiles LanguageModel.restore() of a 10,000-message session's
// snapshot in Chromium, as BenchmarkPeersProfile profiles the closed loop: the snapshot
// of a session created on bench.historyWithCalls (-peers.calls=false: bench.history),
// parsed from its JSON text before each restore (docs/snapshots.md "Speed"):
//
//	go test -run '^$' -bench RestoreProfile -benchtime 1x ./internal/peerbench/
func BenchmarkRestoreProfile(b *testing.B) {
	out := filepath.Join(b.TempDir(), "lm.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = "../../wasm/cmd/langmodel"
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	msg, err := cmd.CombinedOutput()
	require.NoError(b, err, string(msg))
	base := browsertest.Serve(b, "", map[string]http.Handler{
		"/langmodel.wasm": browsertest.File(out),
		"/wasm_exec.js":   browsertest.File(browsertest.WasmExecJS(b)),
		"/js/":            http.StripPrefix("/js/", http.FileServer(http.Dir("../../js"))),
		"/peer/bench.js":  browsertest.File("bench.js"),
	})
	ctx, cancel := ownBrowser(b)
	defer cancel()
	_, err = chromedp.Run(ctx, chromedp.Navigate(base+"/"))
	require.NoError(b, err)
	ev := func(js string) float64 {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("(async () => {"+js+"})()", chromedp.EvalAwaitPromise))
		require.NoError(b, err)
		return v
	}
	ev(fmt.Sprintf(`globalThis.bench = await import("/peer/bench.js"); globalThis.lm = await import("/js/language-model.js"); await lm.install({ wasm: "/langmodel.wasm" });
		const msgs = %t ? bench.historyWithCalls(10000) : bench.history(10000);
		const s = await LanguageModel.create({ initialPrompts: msgs, ...bench.lookupOptions() });
		globalThis.snapshotJSON = JSON.stringify(s.snapshot());
		s.destroy();
		return 0`, *restoreCalls))
	ev(`return bench.moduleRestore(LanguageModel, snapshotJSON, 3)`) // V8 tiers the code up first
	cpuProfile(b, ctx, func() {
		ms := ev(`return bench.moduleRestore(LanguageModel, snapshotJSON, 10)`)
		fmt.Printf("profiled: %.1f ms a restore (10 restores, sampled every 50 µs)\n", ms)
	})
	b.ReportMetric(0, "ns/op")
}
