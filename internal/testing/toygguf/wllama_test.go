package toygguf_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/toygguf"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// page is the test page's side: one engine per model (newWllama from
// browsertest's harness), the get_weather tool, and the turns in OpenAI's
// shapes with the random call ids replaced by whether they were there.
const page = `
globalThis.newWllama = (await import("/wllama-harness.js")).newWllama;
globalThis.tools = [{type: "function", function: {name: "get_weather", description: "The weather in a city",
	parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}}];
globalThis.user = [{role: "user", content: "What is the weather in Paris?"}];
globalThis.engines = {};
globalThis.engine = async (model) => engines[model] ??= await newWllama("/" + model + ".gguf");
// turn returns a response's message, finish_reason and whether usage counted the prompt.
globalThis.turn = (r) => ({
	finish: r.choices[0].finish_reason,
	content: r.choices[0].message.content,
	calls: (r.choices[0].message.tool_calls ?? []).map((c) => ({hasId: c.id !== "", type: c.type, name: c.function.name, arguments: c.function.arguments})),
	promptCounted: r.usage.prompt_tokens > 0,
});
// results follows a turn's calls with a tool result each, as a tool loop does.
globalThis.results = (r, content) => [r.choices[0].message,
	...(r.choices[0].message.tool_calls ?? []).map((c) => ({role: "tool", tool_call_id: c.id, content}))];
`

var (
	parisCall  = call{HasID: true, Type: "function", Name: "get_weather", Arguments: `{"city": "Paris"}`}
	londonCall = call{HasID: true, Type: "function", Name: "get_weather", Arguments: `{"city": "London"}`}
)

type call struct {
	HasID     bool   `json:"hasId"`
	Type      string `json:"type"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type turn struct {
	Finish        string `json:"finish"`
	Content       string `json:"content"`
	Calls         []call `json:"calls"`
	PromptCounted bool   `json:"promptCounted"`
}

// serveModels serves wllama, its harness and each of the toy models at
// /<name>.gguf.
func serveModels(t *testing.T) string {
	h := browsertest.WllamaHandlers(t)
	for name, s := range map[string]toygguf.Script{
		"weather": toygguf.Weather, "text": toygguf.WeatherWithText, "always": toygguf.AlwaysCalls,
		"two": toygguf.TwoCalls, "hello": toygguf.Hello,
		"chatml": {Text: "Hello from llama.cpp.", Template: toygguf.ChatMLTemplate, ContextLength: 512},
	} {
		h["/"+name+".gguf"] = browsertest.GGUF(t, s)
	}
	h["/html.gguf"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<!doctype html><title>Not a model</title>"))
	})
	return browsertest.Serve(t, "", h)
}

// TestWllama_ToolLoop runs each model's tool loop, two turns, in real
// llama.cpp (wllama) in each engine: the model's call, parsed by llama.cpp's
// own tool-call parser, and what it says once the result is in the prompt. WebKit plays
// the weather model's rows, the other models' scripts are Chromium's and Firefox's
// (browsertest.SkipCompat).
func TestWllama_ToolLoop(t *testing.T) {
	base := serveModels(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(engineCtx(t), page, nil))
		for _, tc := range []struct {
			name, model, request string
			want                 []turn
		}{
			{"a call, then the answer after its result", "weather", `{tools}`, []turn{
				{Finish: "tool_calls", Calls: []call{parisCall}, PromptCounted: true},
				{Finish: "stop", Content: "It is sunny in Paris.", Calls: []call{}, PromptCounted: true},
			}},
			{"sampling at temperature 2 follows the script too", "weather", `{tools, temperature: 2, top_k: 0, top_p: 1, min_p: 0}`, []turn{
				{Finish: "tool_calls", Calls: []call{parisCall}, PromptCounted: true},
				{Finish: "stop", Content: "It is sunny in Paris.", Calls: []call{}, PromptCounted: true},
			}},
			{"text before the call", "text", `{tools}`, []turn{
				{Finish: "tool_calls", Content: "Let me check the weather.", Calls: []call{parisCall}, PromptCounted: true},
				{Finish: "stop", Content: "It is sunny in Paris.", Calls: []call{}, PromptCounted: true},
			}},
			{"a call after every result", "always", `{tools}`, []turn{
				{Finish: "tool_calls", Calls: []call{parisCall}, PromptCounted: true},
				{Finish: "tool_calls", Calls: []call{parisCall}, PromptCounted: true},
			}},
			{"two calls in one turn", "two", `{tools}`, []turn{
				{Finish: "tool_calls", Calls: []call{parisCall, londonCall}, PromptCounted: true},
				{Finish: "stop", Content: "Sunny in Paris, rainy in London.", Calls: []call{}, PromptCounted: true},
			}},
			{"tool_choice required", "weather", `{tools, tool_choice: "required"}`, []turn{
				{Finish: "tool_calls", Calls: []call{parisCall}, PromptCounted: true},
			}},
			// Without tools in the request (or with tool_choice "none") llama.cpp
			// does not parse calls: the model's text is the answer.
			{"no tools: the call is text", "weather", `{}`, []turn{
				{Finish: "stop", Content: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", Calls: []call{}, PromptCounted: true},
			}},
			{"tool_choice none: the call is text", "weather", `{tools, tool_choice: "none"}`, []turn{
				{Finish: "stop", Content: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", Calls: []call{}, PromptCounted: true},
			}},
			{"a template without tools: the request's tools change nothing", "chatml", `{tools}`, []turn{
				{Finish: "stop", Content: "Hello from llama.cpp.", Calls: []call{}, PromptCounted: true},
			}},
			{"a text answer", "hello", `{tools}`, []turn{
				{Finish: "stop", Content: "Hello from llama.cpp.", Calls: []call{}, PromptCounted: true},
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.model != "weather" {
					browsertest.SkipCompat(t, b, "the "+tc.model+" model's script")
				}
				var got []turn
				require.NoError(t, p.Eval(engineCtx(t), `
const w = await engine(`+js(tc.model)+`);
const messages = [...user];
const out = [];
for (let i = 0; i < `+js(len(tc.want))+`; i++) {
	const r = await w.createChatCompletion({messages, ...`+tc.request+`});
	out.push(turn(r));
	messages.push(...results(r, "sunny"));
}
return out;`, &got))
				require.Equal(t, tc.want, got)
			})
		}
	})
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// chunkShape is a streamed chunk as the tests see it: the envelope's id and
// model, and the first choice's delta (a call's id replaced by whether it was
// there), or the usage of the last chunk.
type chunkShape struct {
	ID       string        `json:"id"`
	Model    string        `json:"model"`
	Object   string        `json:"object"`
	Choices  int           `json:"choices"`
	Role     string        `json:"role,omitempty"`
	Content  string        `json:"content,omitempty"`
	Calls    []streamedArg `json:"calls,omitempty"`
	Finish   string        `json:"finish,omitempty"`
	HasUsage bool          `json:"hasUsage,omitempty"`
}

type streamedArg struct {
	Index     int    `json:"index"`
	HasID     bool   `json:"hasId,omitempty"`
	Type      string `json:"type,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

const shapes = `
globalThis.shape = (c) => {
	const ch = c.choices[0];
	const d = ch?.delta ?? {};
	return {
		id: c.id, model: c.model, object: c.object, choices: c.choices.length,
		role: d.role, content: d.content ?? undefined, finish: ch?.finish_reason ?? undefined,
		calls: d.tool_calls?.map((t) => ({index: t.index, hasId: !!t.id, type: t.type, name: t.function?.name, arguments: t.function?.arguments ?? ""})),
		hasUsage: c.usage?.prompt_tokens > 0 && c.usage?.completion_tokens > 0,
	};
};
globalThis.stream = async (w, messages, extra = {}) => {
	const out = [];
	for await (const c of await w.createChatCompletion({messages, tools, stream: true, stream_options: {include_usage: true}, ...extra})) out.push(shape(c));
	return out;
};
`

// TestWllama_Stream pins the chunks wllama streams, in each engine: llama-server's
// shape with an empty id and model, a first tool delta with the call's id and
// name, then one argument fragment per token, and the usage in a last chunk
// with no choices. WebKit plays the weather model's rows (browsertest.SkipCompat).
func TestWllama_Stream(t *testing.T) {
	base := serveModels(t)
	env := chunkShape{ID: "", Model: "", Object: "chat.completion.chunk", Choices: 1}
	role := env
	role.Role = "assistant"
	content := func(s string) chunkShape { c := env; c.Content = s; return c }
	args := func(index int, s string) chunkShape {
		c := env
		c.Calls = []streamedArg{{Index: index, Arguments: s}}
		return c
	}
	start := func(index int) chunkShape {
		c := env
		c.Calls = []streamedArg{{Index: index, HasID: true, Type: "function", Name: "get_weather", Arguments: "{"}}
		return c
	}
	finish := func(reason string) chunkShape { c := env; c.Finish = reason; return c }
	usage := env
	usage.Choices, usage.HasUsage = 0, true
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(engineCtx(t), page+shapes, nil))
		for _, tc := range []struct {
			name, model, stream string
			want                []chunkShape
		}{
			{"a call", "weather", `stream(await engine("weather"), user)`, []chunkShape{
				role, start(0), args(0, `"city":`), args(0, ` "Paris"}`), finish("tool_calls"), usage,
			}},
			{"the answer after the result", "weather", `stream(await engine("weather"),
				[...user, ...results(await (await engine("weather")).createChatCompletion({messages: user, tools}), "sunny")])`, []chunkShape{
				role, content("It"), content(" is"), content(" sunny"), content(" in"), content(" Paris."), finish("stop"), usage,
			}},
			{"two calls", "two", `stream(await engine("two"), user)`, []chunkShape{
				role, start(0), args(0, `"city":`), args(0, ` "Paris"}`), start(1), args(1, `"city": "London"}`), finish("tool_calls"), usage,
			}},
			{"text, then a call", "text", `stream(await engine("text"), user)`, []chunkShape{
				role, content("Let"), content(" me"), content(" check"), content(" the"), content(" weather."),
				start(0), args(0, `"city":`), args(0, ` "Paris"}`), finish("tool_calls"), usage,
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.model != "weather" {
					browsertest.SkipCompat(t, b, "the "+tc.model+" model's script")
				}
				var got []chunkShape
				require.NoError(t, p.Eval(engineCtx(t), `return await `+tc.stream+`;`, &got))
				require.Equal(t, tc.want, got)
			})
		}
	})
}

// TestWllama_Abort: abortSignal on createChatCompletion stops a stream with
// an AbortError, and the engine answers the next request in full.
func TestWllama_Abort(t *testing.T) {
	base := serveModels(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(engineCtx(t), page+shapes, nil))
		var got struct {
			Chunks []chunkShape `json:"chunks"`
			Error  string       `json:"error"`
			After  turn         `json:"after"`
		}
		require.NoError(t, p.Eval(engineCtx(t), `
const w = await engine("hello");
const ac = new AbortController();
const chunks = [];
let error = "none";
try {
	for await (const c of await w.createChatCompletion({messages: user, stream: true, abortSignal: ac.signal})) {
		chunks.push(shape(c));
		if (c.choices[0]?.delta?.content) ac.abort();
	}
} catch (e) {
	error = e.name;
}
return {chunks, error, after: turn(await w.createChatCompletion({messages: user}))};`, &got))
		require.Equal(t, "AbortError", got.Error)
		require.NotEmpty(t, got.Chunks)
		for _, c := range got.Chunks {
			require.Empty(t, c.Finish, "the stream stopped before its end")
		}
		require.Equal(t, turn{Finish: "stop", Content: "Hello from llama.cpp.", Calls: []call{}, PromptCounted: true}, got.After)
	})
}

// TestWllama_BadModel pins what wllama 3.13.0 does with a file that is not a
// whole GGUF model: loadModel resolves (isModelLoaded() is true), and the
// first completion rejects with a RuntimeError (the wasm aborted). A backend
// must check the file itself.
func TestWllama_BadModel(t *testing.T) {
	base := serveModels(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(engineCtx(t), page, nil))
		for _, tc := range []struct{ name, model string }{
			{"not a GGUF file", `"/html.gguf"`},
			{"a truncated GGUF file", `new Blob([(await (await fetch("/hello.gguf")).arrayBuffer()).slice(0, 4096)])`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var got struct {
					Loaded bool   `json:"loaded"`
					Error  string `json:"error"`
				}
				require.NoError(t, p.Eval(engineCtx(t), `
const w = await newWllama(`+tc.model+`);
try {
	await w.createChatCompletion({messages: user});
	return {loaded: w.isModelLoaded(), error: "none"};
} catch (e) {
	return {loaded: w.isModelLoaded(), error: e.name};
}`, &got))
				require.Equal(t, true, got.Loaded)
				require.Equal(t, "RuntimeError", got.Error)
			})
		}
	})
}

// TestWllama_Context: llama.cpp reads the model's context size, and a prompt's
// token count is its rendered text's bytes, a special token counting one.
func TestWllama_Context(t *testing.T) {
	base := serveModels(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(engineCtx(t), page, nil))
		var got struct {
			Train  int `json:"train"`
			Prompt int `json:"prompt"`
		}
		require.NoError(t, p.Eval(engineCtx(t), `
const w = await engine("chatml");
const r = await w.createChatCompletion({messages: [{role: "user", content: "Hi"}]});
return {train: w.getLoadedContextInfo().n_ctx_train, prompt: r.usage.prompt_tokens};`, &got))
		require.Equal(t, 512, got.Train)
		// <|im_start|> "user\nHi" <|im_end|> "\n" <|im_start|> "assistant\n"
		require.Equal(t, 1+len("user\nHi")+1+1+1+len("assistant\n"), got.Prompt)
	})
}

// engineCtx bounds an Eval that runs llama.cpp: WebKit's compat build takes seconds a
// completion, and many more on a loaded machine, where browsertest's 30 s default is short.
func engineCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
