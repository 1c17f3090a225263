//go:build !js

package clients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// npmDir holds the dev-only npm packages (make deps runs npm ci there).
const npmDir = "../../npm"

// bundleClients bundles testdata/entry.js (the AI SDK and both providers) with the pinned
// esbuild into a file in the test's temporary directory and returns its path.
func bundleClients(t *testing.T) string {
	t.Helper()
	esbuild := filepath.Join(npmDir, "node_modules", ".bin", "esbuild")
	if _, err := os.Stat(esbuild); err != nil {
		t.Fatalf("no esbuild in %s/node_modules (%v): run make deps", npmDir, err)
	}
	out := filepath.Join(t.TempDir(), "clients.js")
	cmd := exec.Command(esbuild, "testdata/entry.js", "--bundle", "--format=esm", "--platform=browser",
		"--log-level=warning", "--outfile="+out)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(npmDir, "node_modules"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, msg)
	}
	return out
}

// prelude loads the face, the bundle and the stand-in model, and installs the module with
// that model as the default backend: the providers call the global LanguageModel, as on
// a page, with no backend of their own.
// %d is the backend's context window.
const prelude = `
globalThis.lm = await import("/js/language-model.js");
await import("/clients.js");
globalThis.model = await import("/model.js");
await lm.install({ wasm: "/langmodel.wasm", backend: { kind: "custom", nativeTools: true, generate: model.generate, contextWindow: %d } });
globalThis.P = { browserAI: clients.browserAI, builtInAI: clients.builtInAI };
globalThis.weather = () => clients.tool({
	description: "The current weather in a city",
	inputSchema: clients.jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
	execute: async ({ city }) => "sunny, 21°C in " + city,
});
`

// TestBrowser_Clients drives the real module through each provider's real code, as a user
// of the AI SDK does: plain text, streaming, the provider's own tool loop (its text
// protocol, over a session without tools), structured output (responseConstraint), and
// an abort in the middle of a stream, which must reach the model.
func TestBrowser_Clients(t *testing.T) {
	base := browsertest.Serve(t, "", map[string]http.Handler{
		"/langmodel.wasm": browsertest.File(browsertest.BuildWasm(t, "../../../wasm/cmd/langmodel")),
		"/wasm_exec.js":   browsertest.File(browsertest.WasmExecJS(t)),
		"/js/":            http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
		"/clients.js":     browsertest.File(bundleClients(t)),
		"/model.js":       browsertest.File("testdata/model.js"),
	})
	b := browsertest.Shared(t)
	behaviours := []struct {
		name   string
		window int    // the backend's context window; 0: 32768
		js     string // run with provider bound to the provider's factory; returns what is compared
		want   map[string]string
	}{
		{
			name: "text",
			js: `const { text, finishReason } = await clients.generateText({ model: provider(), prompt: "PLAIN hello there" });
				return { text, finishReason };`,
			want: map[string]string{
				"browserAI": `{"text":"You said: PLAIN hello there","finishReason":"stop"}`,
				"builtInAI": `{"text":"You said: PLAIN hello there","finishReason":"stop"}`,
			},
		},
		{
			name: "streaming",
			js: `const r = clients.streamText({ model: provider(), prompt: "STREAM one two three" });
				const chunks = [];
				for await (const c of r.textStream) chunks.push(c);
				return { text: chunks.join(""), several: chunks.length > 1, finishReason: await r.finishReason };`,
			want: map[string]string{
				"browserAI": `{"text":"You said: STREAM one two three","several":true,"finishReason":"stop"}`,
				"builtInAI": `{"text":"You said: STREAM one two three","several":true,"finishReason":"stop"}`,
			},
		},
		{
			name: "tool loop",
			js: `const r = await clients.generateText({ model: provider(), tools: { get_weather: weather() },
					stopWhen: clients.stepCountIs(3), prompt: "TOOL weather in Paris?" });
				return { text: r.text, steps: r.steps.length,
					calls: r.steps.flatMap((s) => s.toolCalls.map((c) => [c.toolName, c.input])),
					results: r.steps.flatMap((s) => s.toolResults.map((c) => c.output)),
					sessionTools: model.requests.some((q) => q.tools?.length) };`,
			want: map[string]string{
				"browserAI": `{"text":"It is sunny, 21°C in Paris.","steps":2,"calls":[["get_weather",{"city":"Paris"}]],"results":["sunny, 21°C in Paris"],"sessionTools":false}`,
				"builtInAI": `{"text":"It is sunny, 21°C in Paris.","steps":2,"calls":[["get_weather",{"city":"Paris"}]],"results":["sunny, 21°C in Paris"],"sessionTools":false}`,
			},
		},
		{
			name: "structured output",
			js: `const schema = { type: "object", properties: { city: { type: "string" }, temperature: { type: "number" } },
					required: ["city", "temperature"], additionalProperties: false };
				const r = await clients.generateText({ model: provider(), output: clients.Output.object({ schema: clients.jsonSchema(schema) }),
					prompt: "JSON the weather in Paris" });
				return { output: r.output, constraint: model.requests.at(-1).responseConstraint };`,
			want: map[string]string{
				"browserAI": `{"output":{"city":"Paris","temperature":21},"constraint":{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"number"}},"required":["city","temperature"],"additionalProperties":false}}`,
				"builtInAI": `{"output":{"city":"Paris","temperature":21},"constraint":{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"number"}},"required":["city","temperature"],"additionalProperties":false}}`,
			},
		},
		{
			name: "abort mid-stream",
			js: `const ac = new AbortController();
				const r = clients.streamText({ model: provider(), prompt: "SLOW", abortSignal: ac.signal });
				let text = "", error = null;
				try {
					for await (const c of r.textStream) {
						text += c;
						if (text.length > 20 && !ac.signal.aborted) ac.abort();
					}
				} catch (e) {
					error = e.name;
				}
				for (let i = 0; i < 100 && !model.state.aborted; i++) await new Promise((r) => setTimeout(r, 10));
				return { prefix: text.startsWith("tick 0 tick 1 tick 2 "), stopped: text.length < 200, error, modelAborted: model.state.aborted };`,
			want: map[string]string{
				"browserAI": `{"prefix":true,"stopped":true,"error":null,"modelAborted":true}`,
				"builtInAI": `{"prefix":true,"stopped":true,"error":null,"modelAborted":true}`,
			},
		},
		{
			// Each provider listens for the overflow under its own name: @browser-ai/core for
			// contextoverflow (the session has oncontextoverflow), @built-in-ai/core for the
			// legacy quotaoverflow, which fires with it. The providers resend the whole
			// conversation, so the second call's input evicts the first call's turn.
			name:   "context overflow",
			window: 1000,
			js: `const fired = [];
				const m = provider("text", { onContextOverflow: (e) => fired.push(e.type), onQuotaOverflow: (e) => fired.push(e.type) });
				const messages = [];
				for (const n of ["1", "2"]) {
					messages.push({ role: "user", content: "PLAIN " + n.repeat(800) });
					const { text } = await clients.generateText({ model: m, messages });
					messages.push({ role: "assistant", content: text });
				}
				return { fired, answers: messages.filter((m) => m.role === "assistant").map((m) => m.content.length) };`,
			want: map[string]string{
				"browserAI": `{"fired":["contextoverflow"],"answers":[816,816]}`,
				"builtInAI": `{"fired":["quotaoverflow"],"answers":[816,816]}`,
			},
		},
	}
	for _, provider := range []string{"browserAI", "builtInAI"} {
		for _, bh := range behaviours {
			t.Run(provider+"/"+bh.name, func(t *testing.T) {
				t.Parallel()
				p := b.Open(t, base+"/")
				window := bh.window
				if window == 0 {
					window = 32768
				}
				require.NoError(t, p.Eval(t.Context(), fmt.Sprintf(prelude, window), nil))
				var got any
				require.NoError(t, p.Eval(t.Context(), "const provider = P."+provider+";\n"+bh.js, &got))
				raw, err := json.Marshal(got)
				require.NoError(t, err)
				require.JSONEq(t, bh.want[provider], string(raw), "console:\n%s", strings.Join(p.Console(), "\n"))
			})
		}
	}
}
