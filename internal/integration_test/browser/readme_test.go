//go:build !js

package browser

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/internal/testing/replay"
)

// TestBrowser_READMEExamples runs the backend examples of docs/backends.md in every engine,
// with the replay server standing in for Ollama, llama.cpp and vLLM (their recorded
// streams).
func TestBrowser_READMEExamples(t *testing.T) {
	browsertest.Each(t, readmeExamples)
}

func readmeExamples(t *testing.T, b *browsertest.Browser) {
	base := moduletest.Serve(t, "")
	blocks := moduletest.DocBlocks(t, "TestBrowser_READMEExamples")
	require.Len(t, blocks, 3)
	closed := moduletest.Replace(t, blocks[0], `import { install } from "./language-model.js";`, `const { install } = await import("/js/language-model.js");`)
	closed = moduletest.Replace(t, closed, "http://127.0.0.1:11434/v1", base+"/r/ollama/ollama.sse,vllm.sse")
	open := moduletest.Replace(t, blocks[1], "http://127.0.0.1:8080/v1", base+"/r/llamacpp/openai_parallel.sse,vllm.sse")
	vllm := moduletest.Replace(t, blocks[2], "http://127.0.0.1:8000/v1", base+"/r/vllm/textproto_call.sse,vllm.sse")
	p := b.Open(t, base+"/")
	var got any
	require.NoError(t, p.Eval(t.Context(), `
		const logged = [];
		const out = {};
		{
			const console = { log: (...args) => logged.push(args.map((a) => typeof a === "string" ? a : JSON.stringify(a)).join(" ")) };
			`+closed+`
			out.closed = logged;
		}
		{
			const lookUpWeather = (city) => "21°C in " + city;
			`+open+`
			out.open = [reply, session.history.map((m) => m.role)];
		}
		{
			const weatherTool = { name: "get_weather", description: "Weather in a city", inputSchema: { type: "object", properties: { city: { type: "string" } } }, execute: ({ city }) => "21°C in " + city };
			const output = { text: "", append(chunk) { this.text += chunk; } };
			`+vllm+`
			out.vllm = [output.text, (await (await fetch("/r/vllm/stats")).json()).auth[0]];
		}
		return out;`, &got))
	moduletest.RequireJSON(t, `{"closed":["calling get_weather {\"city\":\"Paris\"}","Sunny in Paris, 21°C."],
		"open":[[{"type":"text","value":"Sunny in Paris, 21°C."}],["user","tool-call","tool-call","tool-result","tool-result","assistant"]],
		"vllm":["Let me check.\nSunny in Paris, 21°C.","Bearer my-key"]}`, got)
}

// fakeWebLLM is an engine shaped like WebLLM's MLCEngine: chat.completions.create with
// stream: true returns an async iterable of OpenAI chunks (here: a call whose arguments
// come in two deltas, then, once a tool result is in the messages, text), and
// interruptGenerate stops it.
const fakeWebLLM = `
const requests = [];
let interrupted = 0;
const engine = {
	chat: { completions: { create: async (req) => {
		requests.push(JSON.parse(JSON.stringify(req)));
		const answered = req.messages.some((m) => m.role === "tool");
		const chunks = req.messages.at(-1).content === "hang" ? null : answered
			? [{ choices: [{ delta: { content: "Sunny " } }] }, { choices: [{ delta: { content: "in Paris." } }] }, { choices: [], usage: { prompt_tokens: 60, completion_tokens: 4 } }]
			: [{ choices: [{ delta: { content: "Let me check. " } }] },
			   { choices: [{ delta: { tool_calls: [{ index: 0, id: "call_1", function: { name: "get_weather", arguments: "{\"ci" } }] } }] },
			   { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "ty\": \"Paris\"}" } }] } }] }];
		return (async function* () {
			if (!chunks) { await new Promise(() => {}); }
			for (const c of chunks) { await null; yield c; }
		})();
	} } },
	interruptGenerate() { interrupted++; },
};
`

// corsStyles play what each server answers to a cross-origin page (read from their
// source): none; llama.cpp's server (the Origin echoed, preflight headers "*");
// vLLM (Starlette's CORSMiddleware with its defaults: any origin, the requested headers
// echoed); Ollama (gin-contrib/cors: local origins on any port, a fixed header list),
// and Ollama with a page whose origin is not in OLLAMA_ORIGINS.
var corsStyles = map[string]func(w http.ResponseWriter, r *http.Request) (handled bool){
	"none": func(http.ResponseWriter, *http.Request) bool { return false },
	"llamacpp": func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		if r.Method != http.MethodOptions {
			return false
		}
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
		w.Header().Set("Access-Control-Allow-Headers", "*")
		w.Header().Set("Content-Type", "text/html")
		return true
	},
	"vllm": func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method != http.MethodOptions {
			return false
		}
		w.Header().Set("Access-Control-Allow-Methods", "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT")
		w.Header().Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
		w.Header().Set("Access-Control-Max-Age", "600")
		return true
	},
	"ollama":           ollamaCORS("http://127.0.0.1:"),
	"ollama-elsewhere": ollamaCORS("https://app.example.com"),
}

func ollamaCORS(allowed string) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.Header.Get("Origin"), allowed) {
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusForbidden)
				return true
			}
			return false
		}
		w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		w.Header().Set("Vary", "Origin")
		if r.Method != http.MethodOptions {
			return false
		}
		w.Header().Set("Access-Control-Allow-Methods", "GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization,Content-Type,User-Agent,Accept,X-Requested-With")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
}

// TestBrowser_CORS: a model server on another origin (another port of 127.0.0.1), with
// each server's CORS behaviour, with and without an API key (an Authorization header),
// through the page's real fetch. What docs/backends.md "CORS" says.
func TestBrowser_CORS(t *testing.T) {
	browsertest.Each(t, cors)
}

func cors(t *testing.T, b *browsertest.Browser) {
	base := moduletest.Serve(t, "")
	urls := map[string]string{}
	for name, style := range corsStyles {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !style(w, r) {
				(&replay.Server{}).ServeHTTP(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		urls[name] = srv.URL
	}
	p := b.Open(t, base+"/")
	require.NoError(t, p.Eval(t.Context(), moduletest.BrowserPrelude, nil))
	var got any
	script := `
		const ask = async (base, apiKey) => {
			const s = await lm.LanguageModel.create({ backend: { kind: "openai", baseURL: base + "/r/c/vllm.sse", model: "m", apiKey } });
			return s.prompt("hi").catch((e) => e.name + ": " + e.message);
		};
		const out = {};
		for (const [name, base] of Object.entries(URLS)) out[name] = [await ask(base), await ask(base, "sk-local")];
		return out;`
	require.NoError(t, p.Eval(t.Context(), "const URLS = "+jsonOf(t, urls)+";"+script, &got))
	// A refused request fails fetch with a TypeError each engine words its own way; the
	// face keeps the browser's words after "the model failed: " (docs/testing.md "Browsers").
	ok, refused := "Sunny in Paris, 21°C.", "NetworkError: the model failed: "+map[browsertest.Engine]string{
		browsertest.Chromium: "Failed to fetch",
		browsertest.Firefox:  "NetworkError when attempting to fetch resource.",
		browsertest.WebKit:   "Load failed",
	}[b.Engine]
	// llama.cpp with a key: the Fetch standard says "*" in Access-Control-Allow-Headers never
	// covers Authorization, but Chromium 156, Firefox ESR 153 and WebKitGTK 2.50 all let it
	// through. If this row fails, an engine has started to enforce it: update docs/backends.md "CORS".
	moduletest.RequireJSON(t, `{"none":["`+refused+`","`+refused+`"],"llamacpp":["`+ok+`","`+ok+`"],"vllm":["`+ok+`","`+ok+`"],
		"ollama":["`+ok+`","`+ok+`"],"ollama-elsewhere":["`+refused+`","`+refused+`"]}`, got)
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestBrowser_READMEEngine runs docs/backends.md's one-line engine backend ({kind:
// "engine", engine}) against a fake WebLLM engine: a closed loop with a native call,
// usage, the history as OpenAI messages, and abort through interruptGenerate.
func TestBrowser_READMEEngine(t *testing.T) {
	browsertest.Each(t, readmeEngine)
}

func readmeEngine(t *testing.T, b *browsertest.Browser) {
	block := moduletest.DocBlocks(t, "TestBrowser_READMEEngine")[0]
	p := b.Open(t, moduletest.Serve(t, "")+"/")
	require.NoError(t, p.Eval(t.Context(), moduletest.BrowserPrelude, nil))
	var got any
	require.NoError(t, p.Eval(t.Context(), moduletest.Common+fakeWebLLM+`
		const weatherTool = getWeather(({ city }) => "21°C in " + city);
		`+block+`
		const ac = new AbortController();
		const hung = session.prompt("hang", { signal: ac.signal });
		while (requests.length < 3) await sleep(1);
		ac.abort();
		return { answer, usage: session.contextUsage, aborted: await caught(hung), interrupted,
			tools: requests[0].tools.map((t) => [t.type, t.function.name]), choice: requests[0].tool_choice ?? "auto",
			second: requests[1].messages.slice(1) };`, &got))
	moduletest.RequireJSON(t, `{"answer":"Sunny in Paris.","usage":64,"aborted":"AbortError","interrupted":1,
		"tools":[["function","get_weather"]],"choice":"auto",
		"second":[{"role":"assistant","content":"Let me check. ","tool_calls":[{"id":"9Gd2dIMCT","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		          {"role":"tool","tool_call_id":"9Gd2dIMCT","name":"get_weather","content":"21°C in Paris"}]}`, got)
}
