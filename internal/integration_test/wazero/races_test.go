//go:build !js

package wazero

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/moduletest"
)

// heldPort is a prelude that stands a port between the face and the host's module which
// answers as a module in a Worker does (remote: after send returns) and holds back what
// the module writes while globalThis.hold is set: held batches wait in globalThis.held
// until release() delivers them, in order. It forces the orders that the chaos suite
// found only by chance in worker mode, where the page and the module run on
// two threads and a message can be on its way while the page acts.
const heldPort = `
	const real = globalThis.__langmodel_channel;
	globalThis.hold = null; // a predicate on a batch's text: true holds it back
	globalThis.held = [];
	let deliver;
	globalThis.release = () => { const b = held.splice(0); for (const text of b) deliver(text); };
	globalThis.__langmodel_channel = {
		get remote() { return true; },
		send: (json, attach) => real.send(json, attach),
		query: (json) => real.query(json),
		connect(receive) {
			deliver = receive;
			real.connect((text) => {
				if (held.length > 0 || (hold && hold(text))) held.push(text);
				else receive(text);
			});
		},
	};
	globalThis.until = async (what, cond) => {
		for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
		if (!cond()) throw new Error("timed out waiting for " + what);
	};`

// TestModule_RemoteRaces plays the two races of worker mode with the order forced: a page
// action (an abort, a destroy) while what the module wrote is still on its way to the
// page. Each row fails without its fix in js/channel.js, js/pagecalls.js and js/session.js.
func TestModule_RemoteRaces(t *testing.T) {
	srv := &chaos.Server{Key: moduletest.ChaosKey}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		name, js, want string
	}{
		{
			// The server's 401 has become the prompt's error reply, which is on its way when
			// the page aborts: the abort wins, with the signal's own reason, and the history
			// is as before (it is either way).
			name: "an abort while the server's error is on its way rejects with the signal's reason",
			js: `
				const s = await lm.LanguageModel.create({ backend });
				await s.prompt("first: chaos[text]");
				const before = JSON.stringify(s.history), usage = s.contextUsage;
				const ac = new AbortController(), reason = new Error("the page gave up");
				hold = (text) => text.includes('"type":"reply"');
				const p = s.prompt("chaos[401]", { signal: ac.signal });
				await until("the error reply", () => held.some((b) => b.includes("NotAllowedError")));
				ac.abort(reason);
				release();
				let got;
				try { await p; got = "answered"; } catch (e) { got = e === reason ? "the signal's reason" : e.name + ": " + e.message; }
				return { got, same: JSON.stringify(s.history) === before && s.contextUsage === usage };`,
			want: `{"got":"the signal's reason","same":true}`,
		},
		{
			// The same with the error an overflow makes (the model's reply longer than the
			// context window): QuotaExceededError on its way, then the abort.
			name: "an abort while an overflow's error is on its way rejects with the signal's reason",
			js: `
				const s = await lm.LanguageModel.create({ backend });
				const ac = new AbortController(), reason = new Error("the page gave up");
				hold = (text) => text.includes('"type":"reply"');
				const p = s.prompt("chaos[huge]", { signal: ac.signal });
				await until("the error reply", () => held.some((b) => b.includes('"error"')));
				ac.abort(reason);
				release();
				let got;
				try { await p; got = "answered"; } catch (e) { got = e === reason ? "the signal's reason" : e.name + ": " + e.message; }
				return { got, history: s.history.length };`,
			want: `{"got":"the signal's reason","history":0}`,
		},
		{
			// A result the engine finished before it heard the abort is kept: the history
			// has it, so the promise resolves with it.
			name: "an abort while the answer is on its way keeps the answer",
			js: `
				const s = await lm.LanguageModel.create({ backend });
				const ac = new AbortController();
				hold = (text) => text.includes('"type":"reply"');
				const p = s.prompt("chaos[text]", { signal: ac.signal });
				await until("the reply", () => held.length > 0);
				ac.abort(new Error("too late"));
				release();
				const answer = await p;
				return { answered: typeof answer === "string" && answer.length > 0, history: s.history.length };`,
			want: `{"answered":true,"history":2}`,
		},
		{
			// destroy() while a tool runs and nothing from the module reaches the page (its
			// tool-abort is on its way): the tool's signal has aborted by the time the
			// prompt rejects.
			name: "destroy while a tool runs aborts the tool's signal before the prompt rejects",
			js: `
				let signal = null;
				const s = await lm.LanguageModel.create({ backend, tools: [{ name: "hang", description: "Never answers",
					inputSchema: { type: "object" }, execute: (a, ctx) => { signal = ctx.signal; return new Promise(() => {}); } }] });
				const p = s.prompt("chaos[call:hang]");
				await until("the tool to start", () => signal !== null);
				hold = () => true;
				let abortedAtRejection = null;
				const settled = p.then(() => "answered", (e) => { abortedAtRejection = signal.aborted; return e.name; });
				s.destroy();
				const got = await settled;
				release();
				return { got, abortedAtRejection, reason: signal.reason?.name };`,
			want: `{"got":"AbortError","abortedAtRejection":true,"reason":"AbortError"}`,
		},
		{
			// The same for a session destroyed by its create() signal: the tool's signal
			// aborts with that signal's reason.
			name: "create's signal aborting while a tool runs aborts the tool with its reason",
			js: `
				let signal = null;
				const ac = new AbortController(), reason = new Error("the page left");
				const s = await lm.LanguageModel.create({ backend, signal: ac.signal, tools: [{ name: "hang", description: "Never answers",
					inputSchema: { type: "object" }, execute: (a, ctx) => { signal = ctx.signal; return new Promise(() => {}); } }] });
				const p = s.prompt("chaos[call:hang]");
				await until("the tool to start", () => signal !== null);
				hold = () => true;
				let abortedAtRejection = null;
				const settled = p.then(() => "answered", (e) => { abortedAtRejection = signal.aborted; return e === reason ? "the signal's reason" : e.name; });
				ac.abort(reason);
				const got = await settled;
				release();
				return { got, abortedAtRejection, sameReason: signal.reason === reason };`,
			want: `{"got":"the signal's reason","abortedAtRejection":true,"sameReason":true}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := chaosHost(t, nil, nil)
			require.NoError(t, moduletest.InstallFetch(h, hs.Client(), 16<<10))
			h.Set("BASE", hs.URL+"/plain/v1")
			h.Set("KEY", moduletest.ChaosKey)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			_, err := h.Eval(ctx, heldPort+`
				await lm.install({});
				globalThis.backend = { kind: "openai", baseURL: BASE, model: "m", apiKey: KEY };`)
			require.NoError(t, err)
			v, err := h.Eval(ctx, tc.js)
			require.NoError(t, err)
			moduletest.RequireJSON(t, tc.want, v)
		})
	}
}
