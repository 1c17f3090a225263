//go:build !js

package wazero

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/moduletest"
	"langmodel/wasm"
)

// TestModule_Scenarios plays every scenario in the real .wasm under wazero, through the
// real js/language-model.js and the real channel.
func TestModule_Scenarios(t *testing.T) {
	for _, sc := range moduletest.AllScenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			if sc.BrowserOnly {
				t.Skip("needs what goja lacks (async generators); Chromium plays it")
			}
			moduletest.RequireJSON(t, sc.Want, moduletest.PlayModule(t, sc.Setup, moduletest.Common+sc.JS))
		})
	}
}

// TestModule_BadMessages sends the module what no page using js/ would send, straight
// into the channel, and requires an answer and a module that lives on.
func TestModule_BadMessages(t *testing.T) {
	h := moduletest.NewHost(t)
	v, err := h.Eval(t.Context(), `
		const ch = globalThis.__langmodel_channel;
		for (const bad of [undefined, 5, "", "{", "null", "[]", '{"type":"prompt","id":1e400}', '{"type":"dance","id":77}',
			'{"type":"create","id":78,"session":"x"}', '{"type":"tool-return","id":99999,"value":1}', '{"type":"abort","target":-1}']) {
			ch.send(bad);
		}
		const q = [ch.query(), ch.query(7), ch.query("{"), ch.query('{"type":"history","session":12345}')];
		const s = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "alive" }] } });
		return { q: q.map((x) => x === undefined ? "undefined" : JSON.parse(x).error?.name), alive: await s.prompt("x") };`)
	require.NoError(t, err)
	moduletest.RequireJSON(t, `{"q":["undefined","undefined","TypeError","InvalidStateError"],"alive":"alive"}`, v)
	code, exited := h.Exited()
	require.False(t, exited, "exit code %d", code)
}

// TestModule_VersionMismatch: a face and a module that speak different protocol versions
// fail install() with NotSupportedError; install() may then be retried.
func TestModule_VersionMismatch(t *testing.T) {
	h := moduletest.FaceHost(t)
	v, err := h.Eval(t.Context(), `
		const real = globalThis.__langmodel_channel;
		globalThis.__langmodel_channel = { ...real, send: (m) => real.send(m.replace(/"version":\d+/, '"version":99')) };
		let first;
		try { await lm.install({}); } catch (e) { first = [e.name, e.message]; }
		globalThis.__langmodel_channel = real;
		return { first, second: (await lm.install({})).version };`)
	require.NoError(t, err)
	moduletest.RequireJSON(t, fmt.Sprintf(`{"first":["NotSupportedError","langmodel: the page speaks protocol 99 and the module %[1]d; load the language-model.js built with this module"],"second":%[1]d}`, wasm.ProtocolVersion), v)
}

// TestModule_InstallBackend: install({backend}) sets the default of create(), which
// create({backend}) overrides; a malformed default fails install(), which may be retried.
func TestModule_InstallBackend(t *testing.T) {
	h := moduletest.FaceHost(t)
	v, err := h.Eval(t.Context(), `
		const bad = await lm.install({ backend: { kind: "custom", generate: 5 } }).then(() => "installed", (e) => e.name + ": " + e.message);
		await lm.install({ backend: { kind: "custom", generate: (req) => "default saw " + req.messages.length } });
		const a = await lm.LanguageModel.create();
		const b = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "override" }] } });
		const c = await a.clone();
		return { bad, a: await a.prompt("x"), b: await b.prompt("x"), c: await c.prompt("y"), avail: await lm.LanguageModel.availability() };`)
	require.NoError(t, err)
	moduletest.RequireJSON(t, `{"bad":"TypeError: invalid backend: backend.generate must be a function","a":"default saw 1","b":"override","c":"default saw 1","avail":"available"}`, v)
}
