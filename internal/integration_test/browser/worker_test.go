//go:build !js

package browser

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// serveWorker serves the face under /js/ as serve does, and two broken copies of the face: /jsdie/, whose worker breaks
// (an uncaught error) when the page sends it a message that contains "die-now", and
// /jsnoworker/, which has no worker.js at all.
func serveWorker(t *testing.T) string {
	face := http.FileServer(http.Dir("../../../js"))
	broken := func(prefix, worker string) http.Handler {
		return http.StripPrefix(prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "worker.js":
				if worker == "" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/javascript")
				_, _ = w.Write([]byte(worker))
			case "langmodel.wasm":
				http.ServeFile(w, r, moduletest.ModuleWasm)
			case "wasm_exec.js":
				http.ServeFile(w, r, browsertest.WasmExecJS(t))
			default:
				face.ServeHTTP(w, r)
			}
		}))
	}
	return browsertest.Serve(t, "", map[string]http.Handler{
		"/jsdie/":            broken("/jsdie/", `import "/js/worker.js"; addEventListener("message", (e) => { if (typeof e.data === "string" && e.data.includes("die-now")) throw new Error("the worker broke"); });`),
		"/jsnoworker/":       broken("/jsnoworker/", ""),
		"/js/":               http.StripPrefix("/js/", face),
		"/js/langmodel.wasm": browsertest.File(moduletest.ModuleWasm),
		"/js/wasm_exec.js":   browsertest.File(browsertest.WasmExecJS(t)),
		"/langmodel.wasm":    browsertest.File(moduletest.ModuleWasm),
		"/wasm_exec.js":      browsertest.File(browsertest.WasmExecJS(t)),
	})
}

// TestBrowser_Worker: install({worker: true}) as a page sees it: the page's own fetch
// downloads the module (with progress) and carries the backend's requests, a worker that
// breaks rejects every call as a module that stopped does, and a worker that cannot be
// found rejects install(), which may then be retried.
func TestBrowser_Worker(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := serveWorker(t)
		for _, tc := range []struct {
			name, js, want string
		}{
			{"install({fetch}): the page's fetch downloads the module and carries the model's requests", `
				const lm = await import("/js/language-model.js");
				const urls = [];
				const sse = 'data: {"choices":[{"delta":{"content":"from the page"}}]}\n\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
				const myFetch = (url, init) => {
					urls.push(new URL(url, location.href).pathname);
					if (String(url).endsWith(".wasm")) return fetch(url, init);
					return Promise.resolve(new Response(sse, { headers: { "Content-Type": "text/event-stream" } }));
				};
				const events = [];
				const installing = lm.install({ worker: true, wasm: "/langmodel.wasm", fetch: myFetch });
				await lm.LanguageModel.create({ monitor(m) { m.addEventListener("downloadprogress", (e) => events.push(e.loaded)); } });
				await installing;
				const s = await lm.LanguageModel.create({ backend: { kind: "openai", baseURL: "http://model.test/v1", model: "m" } });
				return { urls, first: events[0], last: events.at(-1), answer: await s.prompt("hi") };`,
				`{"urls":["/langmodel.wasm","/v1/chat/completions"],"first":0,"last":1,"answer":"from the page"}`},
			{"a .wasm named by the page, beside the worker's own wasm_exec.js or elsewhere", `
				const face = await import("/js/language-model.js");
				await face.install({ worker: true, wasm: "/js/langmodel.wasm" });
				const s = await face.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "beside" }] } });
				const other = await import("/jsdie/language-model.js");
				await other.install({ worker: true, wasm: "/langmodel.wasm", wasmExec: "/wasm_exec.js" });
				const o = await other.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "elsewhere" }] } });
				return [await s.prompt("x"), await o.prompt("y")];`,
				`["beside","elsewhere"]`},
			{"a worker that breaks rejects what is pending and every later call", `
				const lm = await import("/jsdie/language-model.js");
				await lm.install({ worker: true });
				let aborted = false;
				const s = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ calls: [{ name: "wait", arguments: {} }] }] },
					tools: [{ name: "wait", description: "Waits", inputSchema: { type: "object" },
						execute: (args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => { aborted = true; resolve("late"); })) }] });
				const pending = await s.prompt("die-now").catch((e) => e.name + ": " + e.message);
				const later = await s.prompt("again").catch((e) => e.name + ": " + e.message);
				return { pending, later, aborted };`,
				`{"pending":"OperationError: The language model module stopped.","later":"OperationError: The language model module stopped.","aborted":true}`},
			{"a worker that cannot be loaded rejects install(), which may be retried", `
				const broken = await import("/jsnoworker/language-model.js");
				const first = await broken.install({ worker: true }).catch((e) => e.name + ": " + e.message.replace(location.origin, ""));
				const again = await broken.install({ worker: true }).catch((e) => e.name);
				const lm = await import("/js/language-model.js");
				await lm.install({ worker: true });
				const s = await lm.LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }] } });
				return { first, again, answer: await s.prompt("x") };`,
				`{"first":"NetworkError: The language model worker /jsnoworker/worker.js failed to start: it, or a file it imports beside it (load.js, wasm_exec.js), could not be loaded.","again":"NetworkError","answer":"ok"}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				p := b.Open(t, base+"/")
				var got any
				require.NoError(t, p.Eval(t.Context(), tc.js, &got))
				moduletest.RequireJSON(t, tc.want, got)
			})
		}
	})
}

// TestBrowser_WorkerMirror: session.history and session.contextUsage, read on the page
// wherever the page can read them (after each call, inside execute, approve and generate,
// inside event handlers, after an abort's rollback, an eviction and a clone), are the
// same with the module in a Worker as with the module on the page.
func TestBrowser_WorkerMirror(t *testing.T) {
	const js = `
		const seen = [];
		const look = (label, s) => seen.push(label + " " + s.contextUsage + " " + JSON.stringify(s.history));
		let s;
		s = await LanguageModel.create({ initialPrompts: [{ role: "system", content: "be brief" }],
			backend: script({ calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { text: "sunny" }, { chunks: ["par"], hang: true }, { text: "after" }, { text: "long" }),
			tools: [weather((args) => { look("execute", s); return "21°C"; })],
			toolUseConfig: { approve: () => { look("approve", s); return true; } } });
		look("create", s);
		s.ontoolcall = () => look("toolcall", s);
		s.ontoolresult = () => look("toolresult", s);
		await s.prompt("weather?");
		look("prompt", s);
		const ac = new AbortController();
		const reader = s.promptStreaming("go on", { signal: ac.signal }).getReader();
		await reader.read();
		look("streaming", s);
		ac.abort(new Error("stop"));
		await reader.read().catch(() => {});
		look("aborted", s);
		await s.append("more");
		look("append", s);
		const c = await s.clone();
		look("clone", c);
		look("original", s);
		await c.prompt("next");
		look("clone prompt", c);
		s.oncontextoverflow = () => look("overflow", s);
		const small = await LanguageModel.create({ backend: { kind: "scripted", window: 45, turns: [{ text: "one" }, { text: "two" }] } });
		await small.prompt("first");
		s = small;
		small.oncontextoverflow = () => look("overflow", small);
		await small.prompt("x".repeat(120));
		look("evicted", small);
		const g = await LanguageModel.create({ backend: { kind: "custom", generate: () => { look("generate", g); return "made"; } } });
		await g.prompt("make");
		look("generated", g);
		small.destroy();
		look("destroyed", c);
		return seen;`
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := moduletest.Serve(t, "")
		var got [2][]string
		for i, m := range moduletest.Modes {
			p := b.Open(t, base+"/")
			require.NoError(t, p.Eval(t.Context(), m.Prelude(), nil))
			require.NoError(t, p.Eval(t.Context(), moduletest.Common+js, &got[i]))
		}
		var labels []string
		for _, line := range got[0] {
			labels = append(labels, strings.SplitN(line, " ", 2)[0])
		}
		require.Equal(t, []string{"create", "toolcall", "approve", "execute", "toolresult", "prompt", "streaming", "aborted", "append",
			"clone", "original", "clone", "overflow", "evicted", "generate", "generated", "destroyed"}, labels)
		require.Equal(t, got[0], got[1], "page, then worker")
	})
}
