//go:build !js

package browser

// Snapshots in the browsers: saved after every step, the page reloaded mid-loop and the
// session restored; snapshotStore in IndexedDB.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// reloadLoops are the three loops of TestBrowser_SnapshotReload: what the page does
// before the reload (a session saved after every step by snapshotStore's autosave, left
// with what waitFor waits for in its latest save), and after it (restore, go on).
var reloadLoops = []struct {
	name, before, waitFor, after, want string
}{
	{
		name: "closed: weather running, forget waiting for approval",
		before: `
			const s = await LanguageModel.create({ tools: savedTools(() => new Promise(() => {}), () => new Promise(() => {})),
				toolUseConfig: { approve: (call) => (call.name === "forget" ? new Promise(() => {}) : true) },
				backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Oslo" } }, { name: "forget", arguments: { city: "Paris" } }] }] } });
			store.autosave("chat", s);
			s.prompt("Weather in Oslo, and forget Paris").catch(() => {});`,
		waitFor: `snap.running.length === 1 && snap.approving.length === 1`,
		after: `
			const s = await LanguageModel.restore(snap, { tools: savedTools(() => "sunny", () => "forgotten"), toolUseConfig: { approve },
				backend: { kind: "scripted", turns: [{ text: "Done." }] } });
			const restored = tail(s, 1);
			const answer = await s.prompt("go on");`,
		want: `{"saved":{"pending":["call_1","call_2"],"running":["call_1"],"approving":["call_2"]},
			"restored":["tool-result weather call_1 error: interrupted: the page was closed or reloaded while this tool call ran"],
			"answer":"Done.","asked":["forget"],
			"tail":["tool-result forget call_2 [{\"type\":\"text\",\"value\":\"forgotten\"}]","user go on","assistant Done."]}`,
	},
	{
		name: "open: calls handed back before the reload",
		before: `
			const tools = savedTools().map(({ execute, ...t }) => t);
			const s = await LanguageModel.create({ tools, expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
				backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Oslo" } }, { name: "forget", arguments: { city: "Paris" } }] }] } });
			store.autosave("chat", s);
			await s.prompt("Weather in Oslo, and forget Paris");`,
		waitFor: `snap.pending.length === 2`,
		after: `
			const tools = savedTools().map(({ execute, ...t }) => t);
			const s = await LanguageModel.restore(snap, { tools, backend: { kind: "scripted", turns: [{ text: "Done." }] } });
			const restored = tail(s, 1);
			const res = (id, name, value) => ({ role: "tool-result", content: [{ type: "tool-result", value: { callID: id, name, result: [{ type: "text", value }] } }] });
			const answer = await s.prompt([res("call_1", "weather", "sunny"), res("call_2", "forget", "forgotten")]);`,
		want: `{"saved":{"pending":["call_1","call_2"],"running":[],"approving":[]},
			"restored":["tool-call forget call_2"],
			"answer":[{"type":"text","value":"Done."}],"asked":[],
			"tail":["tool-result weather call_1 [{\"type\":\"text\",\"value\":\"sunny\"}]","tool-result forget call_2 [{\"type\":\"text\",\"value\":\"forgotten\"}]","assistant Done."]}`,
	},
	{
		name: "hybrid: weather waiting for approval, forget the page's",
		before: `
			const [weather, forget] = savedTools(() => "sunny");
			const s = await LanguageModel.create({ tools: [weather, { ...forget, execute: undefined }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
				toolUseConfig: { approve: () => new Promise(() => {}) },
				backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Oslo" } }, { name: "forget", arguments: { city: "Paris" } }] }] } });
			store.autosave("chat", s);
			s.prompt("Weather in Oslo, and forget Paris").catch(() => {});`,
		waitFor: `snap.approving.length === 1`,
		after: `
			const [weather, forget] = savedTools(() => "sunny");
			const s = await LanguageModel.restore(snap, { tools: [weather, { ...forget, execute: undefined }], toolUseConfig: { approve },
				backend: { kind: "scripted", turns: [{ text: "Done." }] } });
			const restored = tail(s, 1);
			const answer = await s.prompt([{ role: "tool-result", content: [{ type: "tool-result", value: { callID: "call_2", name: "forget", result: [{ type: "text", value: "forgotten" }] } }] }]);`,
		want: `{"saved":{"pending":["call_1","call_2"],"running":[],"approving":["call_1"]},
			"restored":["tool-call forget call_2"],
			"answer":[{"type":"text","value":"Done."}],"asked":["weather"],
			"tail":["tool-result weather call_1 [{\"type\":\"text\",\"value\":\"sunny\"}]","tool-result forget call_2 [{\"type\":\"text\",\"value\":\"forgotten\"}]","assistant Done."]}`,
	},
}

// TestBrowser_SnapshotReload: a page saves its session after every step in IndexedDB
// (snapshotStore's autosave), is reloaded mid-loop, restores the session and goes on, in
// every engine, with the module on the page and in a Worker, for the closed, open and
// hybrid loops, with a call running and an approval pending at the reload.
func TestBrowser_SnapshotReload(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := moduletest.Serve(t, "")
		for _, m := range moduletest.Modes {
			for _, tc := range reloadLoops {
				t.Run(m.Name+"/"+tc.name, func(t *testing.T) {
					t.Parallel()
					p := b.Open(t, base+"/")
					require.NoError(t, p.Eval(t.Context(), m.Prelude(), nil))
					var saved any
					require.NoError(t, p.Eval(t.Context(), moduletest.SnapshotJS+`
						const store = lm.snapshotStore("reload-test");`+tc.before+`
						let snap;
						for (;;) {
							snap = await store.load("chat");
							if (snap && `+tc.waitFor+`) break;
							await new Promise((r) => setTimeout(r, 10));
						}
						globalThis.beforeReload = true;
						setTimeout(() => location.reload(), 0);
						return { pending: snap.pending, running: snap.running, approving: snap.approving };`, &saved))
					// Wait for the new document: the old one has beforeReload.
					for {
						var fresh bool
						err := p.Eval(t.Context(), `return document.readyState === "complete" && !globalThis.beforeReload;`, &fresh)
						if err == nil && fresh {
							break
						}
						require.NoError(t, t.Context().Err())
						time.Sleep(20 * time.Millisecond)
					}
					require.NoError(t, p.Eval(t.Context(), m.Prelude(), nil))
					var got map[string]any
					require.NoError(t, p.Eval(t.Context(), moduletest.SnapshotJS+`
						const store = lm.snapshotStore("reload-test");
						const snap = await store.load("chat");`+tc.after+`
						return { restored, answer, asked, tail: tail(s, 3) };`, &got))
					got["saved"] = saved
					moduletest.RequireJSON(t, tc.want, got)
				})
			}
		}
	})
}

// TestBrowser_SnapshotStore: snapshotStore keeps snapshots by key in IndexedDB: a
// session's snapshot taken when saved, a snapshot object, list, delete, and autosave
// stopped.
func TestBrowser_SnapshotStore(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		moduletest.RequireJSON(t, `{"missing":null,"keys":["a","b"],"a":true,"b":["hi","one"],"afterDelete":["b"],"stopped":2,"saved":4,"autosaved":2}`,
			moduletest.PlayBrowser(t, b, moduletest.Serve(t, ""), moduletest.BrowserPrelude, moduletest.SnapshotJS+`
				const store = lm.snapshotStore("store-test");
				const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "one" }, { text: "two" }] } });
				const missing = (await store.load("a")) ?? null;
				await store.save("a", s.snapshot());
				const stop = store.autosave("b", s);
				await s.prompt("hi");
				let saved = 0;
				while (saved !== 2) saved = (await store.load("b")).history.length; // the save after the prompt lands
				stop();
				await s.prompt("again");
				await store.save("marker", {}); // after any write issued before: transactions on a store run in order
				await store.delete("marker");
				const keys = await store.list();
				const a = (await store.load("a")).version === lm.SNAPSHOT_VERSION;
				const bh = (await store.load("b")).history.map((m) => m.content[0].value);
				await store.delete("a");
				await store.save("c", s);
				return { missing, keys, a, b: bh, afterDelete: (await store.list()).filter((k) => k !== "c"), stopped: bh.length, saved: (await store.load("c")).history.length, autosaved: saved };`))
	})
}
