//go:build !js

package bench

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// snapshotHistoryJS defines historyOf(m, calls): m messages in the peer benchmark's shape
// (internal/integration_test/peerbench/bench.js: a system message, then user and assistant in turn), with
// calls a tool call and its result in every ten (a user's message answered by a call
// first), and tools, the one tool they call.
const snapshotHistoryJS = `
const tools = [{ name: "lookup", description: "Looks a word up", inputSchema: { type: "object", properties: { word: { type: "string" } } }, execute: () => "found" }];
const historyOf = (m, calls) => {
	const out = [{ role: "system", content: "You are a benchmark." }];
	for (let i = 1; i < m; i++) {
		const callID = "call_" + (i - (i % 10));
		if (calls && i % 10 === 2) out.push({ role: "tool-call", content: [{ type: "tool-call", value: { callID, name: "lookup", arguments: { word: "w" + i } } }] });
		else if (calls && i % 10 === 3) out.push({ role: "tool-result", content: [{ type: "tool-result", value: { callID, name: "lookup", result: [{ type: "text", value: "found " + i }] } }] });
		else out.push({ role: i % 2 ? "user" : "assistant", content: "message " + i + " of the history" });
	}
	return out;
};
const backend = { kind: "scripted", turns: [{ text: "ok" }], window: 1e9 };
const expectedInputs = [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }];
`

// BenchmarkBrowser_SnapshotRestore: in one page of headless Chromium (/page: the module
// on the page; /worker: in a Worker), interleaved, the page's time for
// create({initialPrompts}) on a 10,000-message history as a page writes it
// (snapshotHistoryJS: /text without tool calls, /calls with one call and its result in
// every ten messages), for session.history and snapshot() of that session, for
// LanguageModel.restore() of the snapshot parsed from its JSON text (as a page that stored
// it has it), and for passed-back: create({initialPrompts}) on that session's history
// exported and parsed back, the way a page kept a session before snapshots,
// each a median over the rounds. restore-ratio is restore over create,
// restore-passed-back-ratio restore over passed-back. docs/snapshots.md "Speed".
//
//	go test -run '^$' -bench Browser_SnapshotRestore -benchtime 20x ./internal/integration_test/bench/
func BenchmarkBrowser_SnapshotRestore(b *testing.B) {
	for _, m := range moduletest.Modes {
		for _, shape := range []struct {
			name  string
			calls bool
		}{{"text", false}, {"calls", true}} {
			b.Run(m.Name+"/"+shape.name, func(b *testing.B) { benchSnapshotRestore(b, m, shape.calls) })
		}
	}
}

func benchSnapshotRestore(b *testing.B, m moduletest.Mode, calls bool) {
	p := browsertest.Shared(b).Open(b, moduletest.Serve(b, "")+"/")
	require.NoError(b, p.Eval(b.Context(), m.Prelude()+snapshotHistoryJS+fmt.Sprintf(`
		const calls = %t;
		globalThis.round = async () => {
			const { LanguageModel } = lm;
			const msgs = historyOf(10000, calls);
			let t0 = performance.now();
			const s = await LanguageModel.create({ initialPrompts: msgs, expectedInputs, tools, backend });
			const create = performance.now() - t0;
			t0 = performance.now();
			s.history;
			const history = performance.now() - t0;
			t0 = performance.now();
			const snap = s.snapshot();
			const snapshot = performance.now() - t0;
			const exported = JSON.parse(JSON.stringify(s.history));
			s.destroy();
			const parsed = JSON.parse(JSON.stringify(snap));
			t0 = performance.now();
			const r = await LanguageModel.restore(parsed, { tools, backend });
			const restore = performance.now() - t0;
			if (r.history.length !== 10000) throw new Error("restored " + r.history.length);
			r.destroy();
			t0 = performance.now();
			const back = await LanguageModel.create({ initialPrompts: exported, expectedInputs, tools, backend });
			const passedBack = performance.now() - t0;
			back.destroy();
			return { create, history, snapshot, restore, passedBack };
		};
		for (let i = 0; i < 3; i++) await round(); // V8 tiers the code up first`, calls), nil))
	var create, history, snapshot, restore, passedBack []float64
	for b.Loop() {
		var r struct{ Create, History, Snapshot, Restore, PassedBack float64 }
		require.NoError(b, p.Eval(b.Context(), `return round();`, &r))
		create = append(create, r.Create)
		history = append(history, r.History)
		snapshot = append(snapshot, r.Snapshot)
		restore = append(restore, r.Restore)
		passedBack = append(passedBack, r.PassedBack)
	}
	c, s, r := browsertest.Median(create), browsertest.Median(snapshot), browsertest.Median(restore)
	b.ReportMetric(c, "create-ms")
	b.ReportMetric(browsertest.Median(history), "history-ms")
	b.ReportMetric(s, "snapshot-ms")
	b.ReportMetric(r, "restore-ms")
	b.ReportMetric(r/c, "restore-ratio")
	pb := browsertest.Median(passedBack)
	b.ReportMetric(pb, "passed-back-ms")
	b.ReportMetric(r/pb, "restore-passed-back-ratio")
	b.ReportMetric(0, "ns/op")
}

// TestBrowser_SnapshotSize: the snapshot of a 10,000-message session (snapshotHistoryJS,
// with calls) is the history's own JSON and a few hundred bytes more (docs/snapshots.md, "Speed"), and
// restoring it gives the same history, in every engine.
func TestBrowser_SnapshotSize(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, moduletest.Serve(t, "")+"/")
		require.NoError(t, p.Eval(t.Context(), moduletest.BrowserPrelude, nil))
		var got struct {
			Over int
			Same bool
		}
		require.NoError(t, p.Eval(t.Context(), snapshotHistoryJS+`
			const { LanguageModel } = lm;
			const s = await LanguageModel.create({ initialPrompts: historyOf(10000, true), expectedInputs, tools, backend });
			const history = JSON.stringify(s.history);
			const snap = JSON.stringify(s.snapshot());
			s.destroy();
			const r = await LanguageModel.restore(snap, { tools, backend });
			const same = JSON.stringify(r.history) === history;
			r.destroy();
			return { over: snap.length - history.length, same };`, &got))
		t.Logf("%s: the snapshot is the history's JSON and %d bytes", b.Version, got.Over)
		require.True(t, got.Same, "the restored history is the saved one")
		require.Positive(t, got.Over)
		require.LessOrEqual(t, got.Over, 500, "bytes beyond the history's JSON")
	})
}
