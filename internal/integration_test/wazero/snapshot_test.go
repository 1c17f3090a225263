//go:build !js

package wazero

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/moduletest"
)

// TestModule_SnapshotVersions restores every snapshot the project has kept, one per
// version it shipped (testdata/snapshots), in the real module under wazero, and goes
// on: each was saved with a call running (weather) and one waiting for approval
// (forget).
func TestModule_SnapshotVersions(t *testing.T) {
	files, err := filepath.Glob("testdata/snapshots/v*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			snap, err := os.ReadFile(f)
			require.NoError(t, err)
			h := moduletest.NewHost(t)
			h.Set("SNAP", string(snap))
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			v, err := h.Eval(ctx, moduletest.SnapshotJS+`
				const s = await LanguageModel.restore(SNAP, { tools: savedTools(() => "sunny", () => "forgotten"), toolUseConfig: { approve },
					backend: { kind: "scripted", turns: [{ text: "Done." }] } });
				const restored = tail(s, 1);
				const answer = await s.prompt("go on");
				return { samplingMode: s.samplingMode, restored, answer, asked, tail: tail(s, 4) };`)
			require.NoError(t, err)
			moduletest.RequireJSON(t, `{"samplingMode":"predictable","restored":["tool-result weather call_1 error: interrupted: the page was closed or reloaded while this tool call ran"],
				"answer":"Done.","asked":["forget"],
				"tail":["tool-result weather call_1 error: interrupted: the page was closed or reloaded while this tool call ran","tool-result forget call_2 [{\"type\":\"text\",\"value\":\"forgotten\"}]","user go on","assistant Done."]}`, v)
		})
	}
}

// TestModule_SnapshotApprovals restores the version 3 snapshot, whose session had allowed
// forget always, with keepApprovals: the call to forget that waited for approval runs at
// the next prompt unasked, and the restored session's snapshot keeps the decision as it
// was saved (a round trip).
func TestModule_SnapshotApprovals(t *testing.T) {
	snap, err := os.ReadFile("testdata/snapshots/v3.json")
	require.NoError(t, err)
	h := moduletest.NewHost(t)
	h.Set("SNAP", string(snap))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	v, err := h.Eval(ctx, moduletest.SnapshotJS+`
		const s = await LanguageModel.restore(SNAP, { tools: savedTools(() => "sunny", () => "forgotten"), toolUseConfig: { approve }, keepApprovals: true,
			backend: { kind: "scripted", turns: [{ text: "Done." }] } });
		await s.prompt("go on");
		const again = s.snapshot();
		return { asked, tail: tail(s, 3), listed: s.approvals.map((t) => t.name), same: JSON.stringify(again.approvals) === JSON.stringify(JSON.parse(SNAP).approvals), version: again.version };`)
	require.NoError(t, err)
	moduletest.RequireJSON(t, `{"asked":[],"tail":["tool-result forget call_2 [{\"type\":\"text\",\"value\":\"forgotten\"}]","user go on","assistant Done."],
		"listed":["forget"],"same":true,"version":4}`, v)
}

// snapshotScenario is a row of the snapshot tables: its name, the page's code, and the
// JSON the code returns.
type snapshotScenario struct{ name, js, want string }

// snapshotScenarios are played in the module under wazero (TestModule_Snapshot).
var snapshotScenarios = []snapshotScenario{
	{"a snapshot restores to the same history, usage, options and initial prompts", `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "one" }] }, samplingMode: "creative",
			initialPrompts: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }] });
		await s.prompt("more");
		const snap = s.snapshot();
		const r = await LanguageModel.restore(JSON.stringify(snap), { backend: { kind: "scripted", turns: [{ text: "two" }] } });
		const again = r.snapshot();
		return { same: JSON.stringify(again) === JSON.stringify(snap), initial: snap.initial, usage: r.contextUsage === s.contextUsage,
			samplingMode: r.samplingMode, answer: await r.prompt("x"), n: r.history.length,
			cloneInitial: (await r.clone()).snapshot().initial };`,
		`{"same":true,"initial":3,"usage":true,"samplingMode":"creative","answer":"two","n":7,"cloneInitial":3}`},
	{"a snapshot keeps session.usage, the cached tokens too; a version 1 snapshot restores with none", `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "one", usage: { inputTokens: 30, outputTokens: 4, cachedTokens: 20 } }] } });
		let step;
		s.onstepusage = (e) => step = e.detail.cachedTokens;
		await s.prompt("more");
		const snap = s.snapshot();
		const r = await LanguageModel.restore(snap, { backend: { kind: "scripted", turns: [] } });
		const { usage: _, ...v1 } = { ...snap, version: 1 };
		const old = await LanguageModel.restore(v1, { backend: { kind: "scripted", turns: [] } });
		const { cachedTokens: __, ...uncounted } = snap.usage; // saved before the total was kept
		const before = await LanguageModel.restore({ ...snap, usage: uncounted }, { backend: { kind: "scripted", turns: [] } });
		const bad = await LanguageModel.restore({ ...snap, usage: { ...snap.usage, steps: -1 } }, { backend: { kind: "scripted", turns: [] } }).then(() => "restored", (e) => e.name);
		const badCached = await LanguageModel.restore({ ...snap, usage: { ...snap.usage, cachedTokens: 1.5 } }, { backend: { kind: "scripted", turns: [] } }).then(() => "restored", (e) => e.name);
		return { version: snap.version, step, saved: snap.usage, restored: r.usage, clone: (await r.clone()).usage.cachedTokens, old: old.usage,
			before: before.usage.cachedTokens, bad, badCached };`,
		`{"version":4,"step":20,"saved":{"inputTokens":30,"outputTokens":4,"steps":1,"estimatedSteps":0,"cachedTokens":20},"restored":{"inputTokens":30,"outputTokens":4,"steps":1,"estimatedSteps":0,"cachedTokens":20},
		"clone":20,"old":{"inputTokens":0,"outputTokens":0,"steps":0,"estimatedSteps":0,"cachedTokens":0},"before":0,"bad":"DataError","badCached":"DataError"}`},
	{"open loop: calls handed back before the reload are the page's to answer after it", `
		const tools = [{ name: "weather", description: "Weather in a city", inputSchema: schema }];
		const s = await LanguageModel.create({ tools, expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Oslo" } }] }] } });
		await s.prompt("weather?");
		const snap = s.snapshot();
		const r = await LanguageModel.restore(snap, { tools, backend: { kind: "scripted", turns: [{ text: "Sunny." }] } });
		const answer = await r.prompt([{ role: "tool-result", content: [{ type: "tool-result", value: { callID: snap.pending[0], name: "weather", result: [{ type: "text", value: "sun" }] } }] }]);
		return { pending: snap.pending, running: snap.running, answer };`,
		`{"pending":["call_1"],"running":[],"answer":[{"type":"text","value":"Sunny."}]}`},
	{"hybrid: a running call is handed back to the page", `
		let started;
		const began = new Promise((r) => (started = r));
		const tools = [{ name: "weather", description: "Weather in a city", inputSchema: schema, execute: () => { started(); return new Promise(() => {}); } },
			{ name: "note", description: "Notes", inputSchema: { type: "object" } }];
		const s = await LanguageModel.create({ tools, expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Oslo" } }, { name: "note", arguments: {} }] }] } });
		s.prompt("weather?").catch(() => {});
		await began;
		const snap = s.snapshot();
		s.destroy();
		const r = await LanguageModel.restore(snap, { tools: [{ ...tools[0], execute: () => "sun" }, tools[1]], backend: { kind: "scripted", turns: [{ text: "Noted." }] } });
		const restored = tail(r, 2);
		const res = (id, name) => ({ role: "tool-result", content: [{ type: "tool-result", value: { callID: id, name, result: [{ type: "text", value: "ok" }] } }] });
		const answer = await r.prompt([res("call_1", "weather"), res("call_2", "note")]);
		return { pending: snap.pending, running: snap.running, restored, answer };`,
		`{"pending":["call_1","call_2"],"running":["call_1"],"restored":["tool-call weather call_1","tool-call note call_2"],"answer":[{"type":"text","value":"Noted."}]}`},
	{"a call that ran in a batch still running is saved as running, never run again", `
		let ran = 0, started;
		const began = new Promise((r) => (started = r));
		const yes = () => true; // forget is destructive: it runs only once approved
		const s = await LanguageModel.create({ tools: savedTools(() => { ran++; return "sunny"; }, () => { started(); return new Promise(() => {}); }),
			toolUseConfig: { parallel: false, approve: yes },
			backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Oslo" } }, { name: "forget", arguments: { city: "Paris" } }] }] } });
		s.snapshot(); // as autosave does first
		s.prompt("go").catch(() => {});
		await began;
		const snap = s.snapshot();
		s.destroy();
		const r = await LanguageModel.restore(snap, { tools: savedTools(() => { ran++; return "again"; }, () => "forgotten"), toolUseConfig: { parallel: false, approve: yes },
			backend: { kind: "scripted", turns: [{ text: "Done." }] } });
		return { running: snap.running, ran, restored: tail(r, 2) };`,
		`{"running":["call_1","call_2"],"ran":1,"restored":["tool-result weather call_1 error: interrupted: the page was closed or reloaded while this tool call ran","tool-result forget call_2 error: interrupted: the page was closed or reloaded while this tool call ran"]}`},
	{"restore refuses a snapshot it cannot continue, with a clear error", `
		const s = await LanguageModel.create({ tools: savedTools(() => "x", () => "y"), backend: { kind: "scripted", turns: [] } });
		const snap = s.snapshot();
		const tools = savedTools(() => "x", () => "y");
		const withApprove = await LanguageModel.create({ tools, toolUseConfig: { approve }, backend: { kind: "scripted", turns: [] } });
		const err = async (snapshot, options) => { try { await LanguageModel.restore(snapshot, options); return "restored"; } catch (e) { return e.name + ": " + e.message; } };
		return [
			await err({ ...snap, version: 99 }, { tools }),
			await err({ ...snap, version: "1" }, { tools }),
			await err("{", { tools }),
			await err({ ...snap, history: {} }, { tools }),
			await err(snap, { tools: tools.slice(0, 1) }),
			await err(snap, { tools: [tools[0], { ...tools[1], execute: undefined }] }),
			await err(snap, { tools: [tools[0], { ...tools[1], inputSchema: { type: "object" } }] }),
			await err({ ...snap, initial: 5 }, { tools }),
			await err(snap, { tools: [tools[1], tools[0]] }),
			await err(withApprove.snapshot(), { tools }),
		];`,
		`["NotSupportedError: LanguageModel.restore(): snapshot version 99 is newer than this module's (4); restore it with the module that saved it, or a later one",
		"DataError: LanguageModel.restore(): the snapshot has no version",
		"DataError: LanguageModel.restore(): the snapshot is a string, and not JSON",
		"DataError: LanguageModel.restore(): the snapshot's history is not an array",
		"TypeError: LanguageModel.restore(): the snapshot's tools are forget, weather, and the tools given are weather",
		"TypeError: LanguageModel.restore(): tool forget had execute when the snapshot was taken",
		"TypeError: LanguageModel.restore(): tool forget's inputSchema is not the one in the snapshot",
		"DataError: malformed message: snapshot: 5 initial prompts in 0 messages",
		"restored",
		"TypeError: LanguageModel.restore(): the snapshot's session asked toolUseConfig.approve before each call; pass one"]`},
	{"a snapshot is the history's JSON and a few hundred bytes more", `
		const initialPrompts = [{ role: "system", content: "You are a benchmark." }];
		for (let i = 1; i < 2000; i++) initialPrompts.push({ role: i % 2 ? "user" : "assistant", content: "message " + i + " of the history" });
		const s = await LanguageModel.create({ initialPrompts, tools: savedTools(() => "x", () => "y"), backend: { kind: "scripted", turns: [] } });
		const over = JSON.stringify(s.snapshot()).length - JSON.stringify(s.history).length;
		return { small: over > 0 && over < 700 };`,
		`{"small":true}`},
}

var snapshotTextScenarios = []snapshotScenario{
	{"a history of text parts, as session.history gives it, restores and passes back to create() as the same history", `
		const initialPrompts = [{ role: "system", content: "Be brief." }, { role: "user", content: "" }, { role: "assistant", content: "h\u00e9llo \ud83d\ude00" },
			{ role: "user", content: [{ type: "text", value: "two" }, { type: "text", value: " parts" }] }];
		const s = await LanguageModel.create({ initialPrompts, backend: { kind: "scripted", turns: [] } });
		const saved = JSON.stringify(s.history);
		const r = await LanguageModel.restore(JSON.stringify(s.snapshot()), { backend: { kind: "scripted", turns: [] } });
		const c = await LanguageModel.create({ initialPrompts: s.history, backend: { kind: "scripted", turns: [] } });
		return { restored: JSON.stringify(r.history) === saved, created: JSON.stringify(c.history) === saved, initial: r.snapshot().initial };`,
		`{"restored":true,"created":true,"initial":4}`},
	{"a snapshot whose history breaks a rule, or is no JSON, rejects as create() does on that history", `
		const s = await LanguageModel.create({ initialPrompts: [{ role: "user", content: "Hi" }], backend: { kind: "scripted", turns: [] } });
		const err = async (p) => { try { await p; return "ok"; } catch (e) { return e.name + ": " + e.message; } };
		const out = [];
		for (const bad of [null, { role: "tool-call", content: [{ type: "text", value: "no" }] }, { role: "system", content: [{ type: "text", value: "late" }] }, { role: "assistant", content: [{ type: "text", value: 1 }] }, { role: "user", content: [{ type: "text", value: "x", extra: 1 }] },
			{ role: "tool-result", content: [{ type: "tool-result", value: { callID: "c1", name: "f", result: [{ type: "text", value: 10n }] } }] }]) {
			const snap = s.snapshot();
			snap.history.push(bad);
			out.push([await err(LanguageModel.restore(snap, {})), await err(LanguageModel.create({ initialPrompts: snap.history }))]);
		}
		return out.map(([r, c]) => r === c ? r : r + " | " + c);`,
		`["TypeError: malformed message: message 1 is not an object", "TypeError: tool content in a message of the wrong role: message 1 part 0: text in a tool-call message",
		"TypeError: a system message may only be the first message of the session: message 1", "TypeError: text content must be a string: message 1 part 0", "ok",
		"DataError: a BigInt cannot be sent to the language model"]`},
}

// TestModule_Snapshot plays snapshotScenarios in the real module under wazero.
func TestModule_Snapshot(t *testing.T) {
	for _, sc := range append(snapshotScenarios, snapshotTextScenarios...) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			moduletest.RequireJSON(t, sc.want, moduletest.PlayModule(t, "", moduletest.SnapshotJS+sc.js))
		})
	}
}
