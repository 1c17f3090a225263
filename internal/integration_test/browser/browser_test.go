//go:build !js

package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/wasm"
)

// TestBrowser_Scenarios plays every scenario in every engine, with the module on the
// page and in a Worker: the real module, fetched and instantiated by the real
// js/language-model.js. The scenarios of an engine and mode share a few pages, one at a
// time each, as a page's sessions follow one another; a scenario with a setup before
// install(), or that says why it needs one (OwnPage), has a page of its own.
func TestBrowser_Scenarios(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				base := moduletest.Serve(t, "") // a replay server per engine and mode: scenarios count requests by nonce
				pages := b.NewPool(t, base+"/", m.Prelude())
				for _, sc := range moduletest.AllScenarios() {
					t.Run(sc.Name, func(t *testing.T) {
						t.Parallel()
						if sc.Setup == "" && sc.OwnPage == "" {
							moduletest.RequireJSON(t, sc.Want, moduletest.PlayPooled(t, pages, moduletest.Common+sc.JS))
							return
						}
						// the scenario's stand-in comes before install(), or sc.OwnPage: a page of its own
						moduletest.RequireJSON(t, sc.Want, moduletest.PlayBrowser(t, b, base, sc.Setup+m.Prelude(), moduletest.Common+sc.JS))
					})
				}
			})
		}
	})
}

// TestBrowser_Install: the globals replace Chromium's native LanguageModel, which has no
// model ("unavailable"), and the native one is kept for the browser backend; Firefox and
// WebKit have none, and get the globals. Nothing of it reaches the console.
func TestBrowser_Install(t *testing.T) {
	base := moduletest.Serve(t, "")
	nativeType := map[browsertest.Engine]string{browsertest.Chromium: "function", browsertest.Firefox: "undefined", browsertest.WebKit: "undefined"}
	// install()'s nativeAvailability: Chromium's answer when it asked ("auto"), else none.
	asked := map[browsertest.Engine]string{browsertest.Chromium: `"unavailable"`, browsertest.Firefox: "null", browsertest.WebKit: "null"}
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		for _, tc := range []struct {
			globals string
			want    string
		}{
			{"auto", `{"defined":true,"ours":true,"native":true,"tools":true,"nativeType":"%s","asked":%s}`},
			{"never", `{"defined":false,"ours":false,"native":true,"tools":false,"nativeType":"%s","asked":null}`},
			{"always", `{"defined":true,"ours":true,"native":true,"tools":true,"nativeType":"%s","asked":null}`},
		} {
			for _, m := range moduletest.Modes {
				t.Run(tc.globals+"/"+m.Name, func(t *testing.T) {
					p := b.Open(t, base+"/")
					var got any
					require.NoError(t, p.Eval(t.Context(), `
					const native = globalThis.LanguageModel;
					`+m.Face+`
					const r = await lm.install({ wasm: "/langmodel.wasm", globals: "`+tc.globals+`" });
					return { defined: r.globals, ours: globalThis.LanguageModel === lm.LanguageModel, native: r.native === native,
						tools: globalThis.LanguageModelToolCall === lm.LanguageModelToolCall, nativeType: typeof native, asked: r.nativeAvailability ?? null };`, &got))
					want := fmt.Sprintf(tc.want, nativeType[b.Engine], asked[b.Engine])
					if tc.globals != "auto" {
						want = fmt.Sprintf(tc.want, nativeType[b.Engine])
					}
					moduletest.RequireJSON(t, want, got)
					// Asking the browser's own model whether it is there names a language:
					// Chromium warns of any availability() without one. (Chromium 156 with no
					// model still says, once, that it has no execution config: its own word.)
					for _, line := range p.Console() {
						require.NotContains(t, line, "output language", "install() asked the native model without its options")
					}
				})
			}
		}
	})
}

// TestBrowser_InstallErrors: a module that cannot be fetched rejects install() with a
// NetworkError, and install() may be retried.
func TestBrowser_InstallErrors(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := moduletest.Serve(t, "")
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) { installErrors(t, b.Open(t, base+"/"), m) })
		}
	})
}

func installErrors(t *testing.T, p *browsertest.Page, m moduletest.Mode) {
	var got any
	require.NoError(t, p.Eval(t.Context(), m.Face+`
		let first;
		try { await lm.install({ wasm: "/missing.wasm" }); } catch (e) { first = e.name; }
		const before = await lm.LanguageModel.create().catch((e) => e.name);
		const r = await lm.install({ wasm: "/langmodel.wasm" });
		const s = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }] } });
		return { first, before, version: r.version, answer: await s.prompt("x") };`, &got))
	moduletest.RequireJSON(t, fmt.Sprintf(`{"first":"NetworkError","before":"InvalidStateError","version":%d,"answer":"ok"}`, wasm.ProtocolVersion), got)
}

// TestBrowser_Progress: install() reads the module as it streams and reports the
// fractions to create()'s monitor, from 0 to 1 and increasing.
func TestBrowser_Progress(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := moduletest.Serve(t, "")
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) { progress(t, b.Open(t, base+"/"), m) })
		}
	})
}

func progress(t *testing.T, p *browsertest.Page, m moduletest.Mode) {
	var got struct {
		Events   []float64 `json:"events"`
		Progress bool      `json:"progress"`
	}
	require.NoError(t, p.Eval(t.Context(), m.Face+`
		const installing = lm.install({ wasm: "/langmodel.wasm" });
		const events = [];
		let progress = true;
		await lm.LanguageModel.create({ monitor(m) { m.addEventListener("downloadprogress", (e) => { events.push(e.loaded); progress &&= e instanceof ProgressEvent && e.total === 1; }); } });
		await installing;
		return { events, progress };`, &got))
	require.True(t, got.Progress)
	require.GreaterOrEqual(t, len(got.Events), 3, "the body arrives in several chunks: %v", got.Events)
	require.Equal(t, 0.0, got.Events[0])
	require.Equal(t, 1.0, got.Events[len(got.Events)-1])
	for i := 1; i < len(got.Events); i++ {
		require.Greater(t, got.Events[i], got.Events[i-1])
	}
}

// TestBrowser_ChromePage: a page written for Chrome's built-in API runs unchanged once
// the module is installed.
func TestBrowser_ChromePage(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		chromePage(t, b.Open(t, moduletest.Serve(t, "testdata/chrome-page")+"/"))
	})
}

func chromePage(t *testing.T, p *browsertest.Page) {
	var all, got []string
	require.NoError(t, p.Eval(t.Context(), `
		for (let i = 0; i < 500 && !globalThis.chromeResult; i++) await new Promise((r) => setTimeout(r, 10));
		return globalThis.chromeResult;`, &all))
	for _, line := range all { // the download's progress in between depends on the chunks
		if !strings.HasPrefix(line, "Downloaded ") || line == "Downloaded 0%" || line == "Downloaded 100%" {
			got = append(got, line)
		}
	}
	require.Equal(t, []string{
		"availability available",
		"topK 3",
		"Downloaded 0%",
		"Downloaded 100%",
		"prompt You said: Write me a poem!",
		"stream You said: Write me an extra-long poem!",
		"usage true of 32768",
		"measure true",
		"abort AbortError",
		"clone You said: Hi",
		"destroyed InvalidStateError",
	}, got)
}

// TestBrowser_Exceptions: errors are the platform's own classes.
func TestBrowser_Exceptions(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) { exceptions(t, b.Open(t, moduletest.Serve(t, "")+"/")) })
}

func exceptions(t *testing.T, p *browsertest.Page) {
	require.NoError(t, p.Eval(t.Context(), moduletest.BrowserPrelude, nil))
	var got any
	require.NoError(t, p.Eval(t.Context(), `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [], window: 20 } });
		const kinds = {};
		const cyc = []; cyc.push(cyc);
		for (const [name, p] of Object.entries({
			data: s.prompt(cyc), type: s.prompt([{ role: "wizard", content: "x" }]), quota: s.prompt("x".repeat(100)),
			syntax: s.prompt([{ role: "user", content: "a", prefix: true }]),
		})) {
			try { await p; kinds[name] = "resolved"; } catch (e) { kinds[name] = [e.constructor.name, e.name, e instanceof DOMException]; }
		}
		return kinds;`, &got))
	// QuotaExceededError is a class of its own (a DOMException) in Chromium only; elsewhere
	// the face raises a DOMException of that name, with the same requested and quota.
	quota := map[browsertest.Engine]string{browsertest.Chromium: "QuotaExceededError", browsertest.Firefox: "DOMException", browsertest.WebKit: "DOMException"}[p.Engine]
	moduletest.RequireJSON(t, `{"data":["DOMException","DataError",true],"type":["TypeError","TypeError",false],
		"quota":["`+quota+`","QuotaExceededError",true],"syntax":["DOMException","SyntaxError",true]}`, got)
}
