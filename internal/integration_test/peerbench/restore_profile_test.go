//go:build !js

package peerbench

import (
	"flag"
	"fmt"
	"testing"
)

var restoreCalls = flag.Bool("peers.calls", true, "BenchmarkRestoreProfile: a history with tool calls (false: text only)")

// BenchmarkRestoreProfile profiles LanguageModel.restore() of a 10,000-message session's
// snapshot in Chromium, as BenchmarkPeersProfile profiles the closed loop: the snapshot
// of a session created on bench.historyWithCalls (-peers.calls=false: bench.history),
// parsed from its JSON text before each restore (docs/snapshots.md "Speed"):
//
//	go test -run '^$' -bench RestoreProfile -benchtime 1x ./internal/integration_test/peerbench/
func BenchmarkRestoreProfile(b *testing.B) {
	ctx, ev := profilePage(b)
	ev(fmt.Sprintf(`globalThis.bench = await import("/peer/bench.js"); globalThis.lm = await import("/js/language-model.js"); await lm.install({ wasm: "/langmodel.wasm" });
		const msgs = %t ? bench.historyWithCalls(10000) : bench.history(10000);
		const s = await LanguageModel.create({ initialPrompts: msgs, ...bench.lookupOptions() });
		globalThis.snapshotJSON = JSON.stringify(s.snapshot());
		s.destroy();
		return 0`, *restoreCalls))
	ev(`return bench.moduleRestore(LanguageModel, snapshotJSON, 3)`) // V8 tiers the code up first
	cpuProfile(b, []profiled{{"the page", ctx}}, 1, nil, func() {
		ms := ev(`return bench.moduleRestore(LanguageModel, snapshotJSON, 10)`)
		fmt.Printf("profiled: %.1f ms a restore (10 restores, sampled every 50 µs)\n", ms)
	})
	b.ReportMetric(0, "ns/op")
}
