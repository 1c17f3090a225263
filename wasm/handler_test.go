package wasm

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

const weatherTool = `{"name":"weather","description":"Weather in a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"hasExecute":true,"execute":7}`

func TestHandler_Hello(t *testing.T) {
	p := newPage(t)
	require.Equal(t, map[string]any{"version": jsonNumber(strconv.Itoa(ProtocolVersion))}, p.ok("hello", helloVersion))
	e := p.fails("hello", `"version":1`, "NotSupportedError")
	require.Contains(t, e["message"], fmt.Sprintf("the page speaks protocol 1 and the module %d", ProtocolVersion))
}

var json1 = jsonNumber("1")

// helloVersion is the hello request's fields for this module's protocol version.
var helloVersion = `"version":` + strconv.Itoa(ProtocolVersion)

func TestHandler_Lifecycle(t *testing.T) {
	p := newPage(t)
	info := p.ok("create", `"session":1,"options":{`+script(`{"text":"one"}`, `{"chunks":["t","wo"]}`, `{"text":"three"}`)+`}`).(map[string]any)
	require.Equal(t, "none", info["mode"])
	require.Equal(t, jsonNumber("32768"), info["contextWindow"])

	r := p.ok("prompt", `"session":1,"input":"hi"`).(map[string]any)
	require.Equal(t, "one", r["text"])
	require.Nil(t, r["calls"])

	p.ok("append", `"session":1,"input":[{"role":"user","content":"more"}]`)
	n := p.ok("measure", `"session":1,"input":"abcdefgh"`)
	require.Equal(t, jsonNumber("6"), n) // 4 per message + 8 bytes / 4

	// Clone, then the clone and the original answer from the same (shared) script.
	p.ok("clone", `"session":1,"clone":2`)
	require.Equal(t, "two", p.ok("prompt", `"session":2,"input":"x"`).(map[string]any)["text"])
	hist := p.ok("history", `"session":2`).([]any)
	require.Len(t, hist, 5) // hi, one, more, x, two
	require.Len(t, p.ok("history", `"session":1`).([]any), 3)

	// The synchronous query gives the same.
	q := decodeMsg(t, p.h.Query([]byte(`{"type":"history","id":0,"session":2}`)))
	require.Equal(t, compact(t, hist), compact(t, q["value"]))

	p.ok("destroy", `"session":1`)
	p.ok("destroy", `"session":1`) // twice is fine
	p.fails("prompt", `"session":1,"input":"x"`, "InvalidStateError")
	p.fails("append", `"session":1,"input":"x"`, "InvalidStateError")
	require.Equal(t, "three", p.ok("prompt", `"session":2,"input":"y"`).(map[string]any)["text"])
}

func TestHandler_ClosedLoop(t *testing.T) {
	p := newPage(t)
	p.tools[7] = func(p *fakePage, m msg) (any, string) {
		args := m["call"].(map[string]any)["arguments"].(map[string]any)
		p.send(fmt.Sprintf(`{"type":"tool-progress","id":%d,"value":{"pct":50}}`, num(m["id"])))
		return "sunny in " + args["city"].(string), ""
	}
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"It is sunny."}`)+`}`)
	r := p.ok("prompt", `"session":1,"input":"weather?"`).(map[string]any)
	require.Equal(t, "It is sunny.", r["text"])

	var kinds []string
	for _, m := range p.drain() {
		kinds = append(kinds, m["type"].(string))
	}
	require.Equal(t, []string{"toolcall", "tool-execute", "toolprogress", "toolresult"}, kinds)
	res := p.logged("toolresult")[0]["detail"].(map[string]any)["result"]
	require.Equal(t, `{"callID":"call_1","callId":"call_1","name":"weather","result":[{"type":"text","value":"sunny in Oslo"}]}`, compact(t, res))
	prog := p.logged("toolprogress")[0]["detail"].(map[string]any)
	require.Equal(t, `{"pct":50}`, compact(t, prog["value"]))
}

// TestHandler_EventsOnlyWhenListened: a session sends the events of the types the page
// listens for and no others, from the listen on; a clone starts listening to none.
func TestHandler_EventsOnlyWhenListened(t *testing.T) {
	p := newPage(t)
	p.deaf = true
	p.tools[7] = func(p *fakePage, m msg) (any, string) {
		p.send(fmt.Sprintf(`{"type":"tool-progress","id":%d,"value":1}`, num(m["id"])))
		return "sunny", ""
	}
	call := `{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+script(call, `{"text":"a"}`, call, `{"text":"b"}`, call, `{"text":"c"}`)+`}`)
	kinds := func() []string {
		var k []string
		for _, m := range p.drain() {
			k = append(k, m["type"].(string))
		}
		p.log = nil
		return k
	}

	p.ok("prompt", `"session":1,"input":"x"`)
	require.Equal(t, []string{"tool-execute"}, kinds(), "nobody listens")

	p.send(`{"type":"listen","session":1,"event":"toolresult"}`)
	p.send(`{"type":"listen","session":1,"event":"nonsense"}`)  // dropped
	p.send(`{"type":"listen","session":99,"event":"toolcall"}`) // no such session: dropped
	p.ok("prompt", `"session":1,"input":"y"`)
	require.Equal(t, []string{"tool-execute", "toolresult"}, kinds(), "toolresult only")

	p.ok("clone", `"session":1,"clone":2`)
	p.ok("prompt", `"session":2,"input":"z"`)
	require.Equal(t, []string{"tool-execute"}, kinds(), "a clone listens to nothing of its own")
}

func TestHandler_ToolReturns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		value  any
		errMsg string
		want   string
	}{
		{"string", "ok", "", `"result":[{"type":"text","value":"ok"}]`},
		{"object", map[string]any{"b": 1, "a": 2}, "", `"result":[{"type":"object","value":{"a":2,"b":1}}]`},
		{"parts", []any{map[string]any{"type": "text", "value": "p"}}, "", `"result":[{"type":"text","value":"p"}]`},
		{"array", []any{1, 2}, "", `"result":[{"type":"object","value":[1,2]}]`},
		{"undefined", nil, "", `"result":[{"type":"object","value":null}]`},
		{"throws", nil, "boom", `"errorMessage":"boom"`},
		// A Uint8Array (an ImageBitmap, a Blob) crosses as bytes: no JSON value, so the model
		// gets a tool error, and the history stays one the page can pass back.
		{"binary data", map[string]any{"type": "bytes", "base64": "AAAA"}, "", `"errorMessage":"malformed tool result: result part 0: an object part holds binary data; give it the type image or audio"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.tools[7] = func(*fakePage, msg) (any, string) { return tc.value, tc.errMsg }
			p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
				script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"done"}`)+`}`)
			p.ok("prompt", `"session":1,"input":"go"`)
			hist := compact(t, p.ok("history", `"session":1`))
			require.Contains(t, hist, tc.want)
		})
	}
}

func TestHandler_InvalidArgumentsNeverReachThePage(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"weather","arguments":{"town":"Oslo"}}]}`, `{"text":"sorry"}`)+`}`)
	p.ok("prompt", `"session":1,"input":"go"`)
	require.Empty(t, p.logged("tool-execute"))
	require.Contains(t, compact(t, p.ok("history", `"session":1`)), `"errorMessage":"invalid arguments for tool weather`)
}

func TestHandler_Approve(t *testing.T) {
	for _, tc := range []struct {
		answer any
		want   string
	}{
		{true, `"value":"ran"`},
		{false, `"errorMessage":"the user declined this tool call"`},
		{"not today", `"errorMessage":"the user declined this tool call: not today"`},
	} {
		t.Run(fmt.Sprint(tc.answer), func(t *testing.T) {
			p := newPage(t)
			p.tools[7] = func(*fakePage, msg) (any, string) { return "ran", "" }
			p.approve = func(m msg) any {
				require.Equal(t, "weather", m["tool"])
				require.Equal(t, json1, m["fn"])
				return tc.answer
			}
			p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],"toolUseConfig":{"approve":1},`+
				script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"ok"}`)+`}`)
			p.ok("prompt", `"session":1,"input":"go"`)
			require.Contains(t, compact(t, p.ok("history", `"session":1`)), tc.want)
		})
	}
}

func TestHandler_OpenLoop(t *testing.T) {
	p := newPage(t)
	tool := `{"name":"weather","description":"Weather","inputSchema":{"type":"object"}}`
	info := p.ok("create", `"session":1,"options":{"expectedInputs":[{"type":"tool-response"}],"expectedOutputs":[{"type":"text"},{"type":"tool-call"}],"tools":[`+tool+`],`+
		script(`{"text":"Checking.","calls":[{"callID":"c1","name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"Sunny."}`)+`}`).(map[string]any)
	require.Equal(t, "open", info["mode"])

	id := p.request("prompt", `"session":1,"input":"weather?","stream":true`)
	r := p.wait(id)["value"].(map[string]any)
	require.Equal(t, "Checking.", r["text"])
	require.Equal(t, `[{"arguments":{"city":"Oslo"},"callID":"c1","callId":"c1","name":"weather"}]`, compact(t, r["calls"]))
	chunks := p.drain()
	require.Len(t, chunks, 2)
	require.Equal(t, "Checking.", chunks[0]["detail"])
	require.Equal(t, "tool-call", chunks[1]["detail"].(map[string]any)["type"])
	require.Equal(t, id, num(chunks[1]["id"]))

	r = p.ok("prompt", `"session":1,"input":[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"weather","result":"sunny"}}]}]`).(map[string]any)
	require.Equal(t, "Sunny.", r["text"])
}

func TestHandler_QueueOrder(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{`+script(`{"text":"1"}`, `{"text":"2"}`, `{"text":"3"}`)+`}`)
	a := p.request("prompt", `"session":1,"input":"a"`)
	b := p.request("append", `"session":1,"input":"b"`)
	c := p.request("prompt", `"session":1,"input":"c"`)
	d := p.request("clone", `"session":1,"clone":2`)
	e := p.request("prompt", `"session":1,"input":"e"`)
	f := p.request("prompt", `"session":2,"input":"f"`)
	require.Equal(t, "1", p.wait(a)["value"].(map[string]any)["text"])
	require.Nil(t, p.wait(b)["error"])
	require.Equal(t, "2", p.wait(c)["value"].(map[string]any)["text"])
	require.Nil(t, p.wait(d)["error"])
	require.Equal(t, "3", p.wait(e)["value"].(map[string]any)["text"])
	require.Equal(t, "InvalidStateError", p.wait(f)["error"].(map[string]any)["name"], "2 did not exist when f was sent")
	require.Len(t, p.ok("history", `"session":2`).([]any), 5) // a 1 b c 2
}

func TestHandler_Abort(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{`+script(`{"chunks":["par"],"hang":true}`, `{"text":"after"}`)+`}`)
	id := p.request("prompt", `"session":1,"input":"a","stream":true`)
	next := p.request("prompt", `"session":1,"input":"b"`)
	p.drain()
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	e := p.wait(id)["error"].(map[string]any)
	require.Equal(t, "AbortError", e["name"])
	require.Equal(t, `[{"content":[{"type":"text","value":"a"}],"role":"user"}]`, compact(t, e["fields"].(map[string]any)["transcript"]))
	require.Equal(t, "after", p.wait(next)["value"].(map[string]any)["text"])
	require.Len(t, p.ok("history", `"session":1`).([]any), 2, "the aborted prompt left no trace")
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id)) // late: dropped
	p.ok("hello", helloVersion)
}

func TestHandler_AbortRunningTool(t *testing.T) {
	p := newPage(t) // no tool function: the call stays unanswered
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"x"}`)+`}`)
	id := p.request("prompt", `"session":1,"input":"go"`)
	var exec msg
	require.Eventually(t, func() bool {
		p.drain()
		if l := p.logged("tool-execute"); len(l) > 0 {
			exec = l[0]
		}
		return exec != nil
	}, 5*time.Second, 10*time.Millisecond)
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged("tool-abort")) == 1 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, num(exec["id"]), num(p.logged("tool-abort")[0]["id"]))
	p.toolReturn(num(exec["id"]), "too late", "") // dropped
	p.ok("hello", helloVersion)
}

func TestHandler_DestroyMidLoop(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"x"}`)+`}`)
	id := p.request("prompt", `"session":1,"input":"go"`)
	queued := p.request("prompt", `"session":1,"input":"later"`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged("tool-execute")) == 1 }, 5*time.Second, 10*time.Millisecond)
	p.ok("destroy", `"session":1`)
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Contains(t, []any{"AbortError", "InvalidStateError"}, p.wait(queued)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged("tool-abort")) == 1 }, 5*time.Second, 10*time.Millisecond)
}

func TestHandler_CloneWaitsForTools(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"sunny"}`, `{"text":"after"}`)+`}`)
	first := p.request("prompt", `"session":1,"input":"go"`)
	clone := p.request("clone", `"session":1,"clone":2`)
	held := p.request("prompt", `"session":1,"input":"next"`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged("tool-execute")) == 1 }, 5*time.Second, 10*time.Millisecond)
	p.toolReturn(num(p.logged("tool-execute")[0]["id"]), "sunny", "")
	require.Equal(t, "sunny", p.wait(first)["value"].(map[string]any)["text"])
	require.Equal(t, "closed", p.wait(clone)["value"].(map[string]any)["mode"])
	require.Equal(t, "after", p.wait(held)["value"].(map[string]any)["text"])
	require.Len(t, p.ok("history", `"session":2`).([]any), 4) // go, call, result, sunny

	// The clone's tool calls are its own: reported under its key.
	p.tools[7] = func(*fakePage, msg) (any, string) { return "rain", "" }
	p.ok("create", `"session":3,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"weather","arguments":{"city":"Rome"}}]}`, `{"text":"r"}`)+`}`)
	p.ok("clone", `"session":3,"clone":4`)
	p.ok("prompt", `"session":4,"input":"go"`)
	p.drain()
	calls := p.logged("toolcall")
	require.Equal(t, int64(4), num(calls[len(calls)-1]["session"]))
}

func TestHandler_Errors(t *testing.T) {
	bad := `{"name":"","description":"d","inputSchema":{"type":"object"},"hasExecute":true,"execute":1}`
	for _, tc := range []struct {
		name, create, prompt, want, message string
	}{
		{"bad tool", `"tools":[` + bad + `]`, "", "TypeError", "invalid tool declaration: tool 0: name must be a non-empty string"},
		{"tool without execute", `"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}]`, "", "TypeError", `tools without execute need {type: "tool-call"} in expectedOutputs: tool "a" has no execute`},
		{"unsupported schema", `"tools":[{"name":"a","description":"d","inputSchema":{"type":"object","unevaluatedProperties":false},"hasExecute":true}]`, "", "NotSupportedError", ""},
		{"backend", `"backend":{"kind":"openai"}`, "", "TypeError", `invalid backend: backend.baseURL is required`},
		{"backend kind", `"backend":{"kind":"llama"}`, "", "NotSupportedError", `invalid backend: unknown backend kind "llama"`},
		{"backend type", `"backend":{"kind":7}`, "", "TypeError", ""},
		{"onLimit", `"toolUseConfig":{"onLimit":"later"}`, "", "TypeError", `invalid option: toolUseConfig.onLimit must be "error" or "answer", not "later"`},
		{"expected input", `"expectedInputs":[{"type":"smell"}]`, "", "TypeError", `invalid option: expectedInputs: unknown type "smell"`},
		{"initial prompts", `"initialPrompts":[{"role":"wizard","content":"x"}]`, "", "TypeError", `unknown role: message 0: "wizard"`},
		{"system not first", "", `[{"role":"user","content":"a"},{"role":"system","content":"b"}]`, "TypeError", "a system message may only be the first message of the session: message 1"},
		{"model error", script(`{"error":{"name":"NetworkError","message":"down"}}`), `"x"`, "NetworkError", "the model failed: down"},
		{"exhausted", script(), `"x"`, "OperationError", "the model failed: scripted model: the script has no more turns"},
		{"initial tool call without tool-call in expectedInputs", `"initialPrompts":[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c","name":"w"}}]}]`, "", "NotSupportedError", `content type not declared in expectedInputs: message 0 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`},
		{"tool response without tool-response in expectedInputs", `"expectedInputs":[{"type":"tool-call"}]`, `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":"x"}}]}]`, "NotSupportedError", `content type not declared in expectedInputs: message 0 part 0: tool-response (declare {type: "tool-response"} in expectedInputs)`},
		{"tool-response is no output type", `"expectedOutputs":[{"type":"tool-response"}]`, "", "NotSupportedError", `invalid option: expectedOutputs: tool-response output is not supported`},
		{"image not expected", "", `[{"role":"user","content":[{"type":"image","value":"x"}]}]`, "NotSupportedError", `content type not declared in expectedInputs: message 0 part 0: image (declare {type: "image"} in expectedInputs)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			var e msg
			create := `"session":1,"options":{` + tc.create + `}`
			if strings.HasPrefix(tc.create, `"initialPrompts":`) {
				create = `"session":1,` + tc.create + `,"options":{}` // beside the options (CreateRequest)
			}
			if tc.prompt == "" {
				e = p.fails("create", create, tc.want)
			} else {
				p.ok("create", create)
				e = p.fails("prompt", `"session":1,"input":`+tc.prompt, tc.want)
			}
			if tc.message != "" {
				require.Equal(t, tc.message, e["message"])
			}
		})
	}
}

func TestHandler_QuotaExceeded(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"backend":{"kind":"scripted","turns":[],"window":20}}`)
	e := p.fails("prompt", `"session":1,"input":"`+strings.Repeat("x", 200)+`"`, "QuotaExceededError")
	f := e["fields"].(map[string]any)
	require.Equal(t, jsonNumber("20"), f["quota"])
	require.Equal(t, jsonNumber("54"), f["requested"])
	require.Equal(t, `[{"content":[{"type":"text","value":"`+strings.Repeat("x", 200)+`"}],"role":"user"}]`, compact(t, f["transcript"]))
}

func TestHandler_ToolLimit(t *testing.T) {
	p := newPage(t)
	p.tools[7] = func(*fakePage, msg) (any, string) { return "x", "" }
	call := `{"calls":[{"name":"weather","arguments":{"city":"A"}},{"name":"weather","arguments":{"city":"B"}}]}`
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],"toolUseConfig":{"maxToolCalls":1},`+script(call)+`}`)
	e := p.fails("prompt", `"session":1,"input":"go"`, "OperationError")
	require.Equal(t, "tool call limit reached: maxToolCalls is 1 and the model asked for call 2 (weather)", e["message"])
	require.Len(t, e["fields"].(map[string]any)["transcript"], 3) // go, two calls
	require.Empty(t, p.ok("history", `"session":1`))

	p.ok("create", `"session":2,"options":{"tools":[`+weatherTool+`],"toolUseConfig":{"maxToolCalls":1,"onLimit":"answer"},`+script(call, `{"text":"final"}`)+`}`)
	require.Equal(t, "final", p.ok("prompt", `"session":2,"input":"go"`).(map[string]any)["text"])
	require.Contains(t, compact(t, p.ok("history", `"session":2`)), "not run: the limit of 1 tool calls")
}

func TestHandler_Availability(t *testing.T) {
	p := newPage(t)
	require.Equal(t, "available", p.ok("availability", `"options":{}`))
	require.Equal(t, "unavailable", p.ok("availability", `"options":{"backend":{"kind":"browser"}}`))
	require.Equal(t, "unavailable", p.ok("availability", `"options":{"expectedOutputs":[{"type":"audio"}]}`))
}

func TestHandler_DefaultModel(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{}`)
	r := p.ok("prompt", `"session":1,"input":"hello"`).(map[string]any)
	require.True(t, strings.HasPrefix(r["text"].(string), "You said: hello"))
}

// TestHandler_Malformed sends what no page using js/ would send, and requires an error
// reply (with the request's id when it could be read) and a handler that still works.
func TestHandler_Malformed(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		id        int64
		want      string
	}{
		{"not JSON", `hello`, 0, "TypeError"},
		{"empty", ``, 0, "TypeError"},
		{"null", `null`, 0, "TypeError"},
		{"array", `[1,2]`, 0, "TypeError"},
		{"trailing", `{"type":"hello","id":1,"version":` + strconv.Itoa(ProtocolVersion) + `} x`, 0, "TypeError"},
		{"type not a string", `{"type":5,"id":3}`, 0, "TypeError"},
		{"unknown type", `{"type":"dance","id":3}`, 3, "TypeError"},
		{"missing type", `{"id":3}`, 3, "TypeError"},
		{"huge id", `{"type":"hello","id":1e400,"version":1}`, 0, "TypeError"},
		{"id too big", `{"type":"hello","id":99999999999999999999,"version":1}`, 0, "TypeError"},
		{"fractional id", `{"type":"hello","id":1.5,"version":1}`, 0, "TypeError"},
		{"string id", `{"type":"hello","id":"1","version":1}`, 0, "TypeError"},
		{"unknown session", `{"type":"prompt","id":4,"session":99,"input":"x"}`, 4, "InvalidStateError"},
		{"no session", `{"type":"prompt","id":4,"input":"x"}`, 4, "InvalidStateError"},
		{"session key wrong type", `{"type":"create","id":5,"session":"one","options":{}}`, 5, "TypeError"},
		{"session key zero", `{"type":"create","id":5,"options":{}}`, 5, "TypeError"},
		{"options wrong type", `{"type":"create","id":5,"session":3,"options":[]}`, 5, "TypeError"},
		{"maxToolCalls wrong type", `{"type":"create","id":5,"session":3,"options":{"toolUseConfig":{"maxToolCalls":"many"}}}`, 5, "TypeError"},
		{"maxToolCalls negative", `{"type":"create","id":5,"session":3,"options":{"toolUseConfig":{"maxToolCalls":-1}}}`, 5, "TypeError"},
		{"tools not an array", `{"type":"create","id":5,"session":3,"options":{"tools":{"name":"x"}}}`, 5, "TypeError"},
		{"missing input", `{"type":"prompt","id":6,"session":1}`, 6, "TypeError"},
		{"input number", `{"type":"prompt","id":6,"session":1,"input":5}`, 6, "TypeError"},
		{"input bad JSON", `{"type":"prompt","id":6,"session":1,"input":{"a":}}`, 0, "TypeError"},
		{"duplicate key", `{"type":"create","id":7,"session":1,"options":{}}`, 7, "TypeError"},
		{"clone to itself", `{"type":"clone","id":8,"session":1,"clone":1}`, 8, "TypeError"},
		{"bad version", `{"type":"hello","id":9,"version":"one"}`, 9, "TypeError"},
		{"abort bad target", `{"type":"abort","target":"x"}`, 0, "TypeError"},
		{"tool-return bad error", `{"type":"tool-return","id":1,"error":"x"}`, 0, "TypeError"},
		{"fetch-response bad headers", `{"type":"fetch-response","id":1,"status":200,"headers":[1]}`, 0, "TypeError"},
		{"fetch-chunk bad data", `{"type":"fetch-chunk","id":1,"data":5}`, 0, "TypeError"},
		{"generate-piece bad id", `{"type":"generate-piece","id":"x","value":"a"}`, 0, "TypeError"},
		{"query type", `{"type":"usage","id":10,"session":1}`, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.ok("create", `"session":1,"options":{}`)
			p.send(tc.raw)
			r := p.wait(tc.id)
			if tc.want == "" {
				require.Nil(t, r["error"])
			} else {
				require.Equal(t, tc.want, r["error"].(map[string]any)["name"], "%v", r)
			}
			p.ok("hello", helloVersion)
			require.Contains(t, p.ok("prompt", `"session":1,"input":"still here"`).(map[string]any)["text"], "still here")
		})
	}
}

// TestHandler_Dropped: late and stray notifications get no reply at all.
func TestHandler_Dropped(t *testing.T) {
	p := newPage(t)
	for _, raw := range []string{
		`{"type":"tool-return","id":12345,"value":1}`,
		`{"type":"tool-progress","id":12345,"value":1}`,
		`{"type":"abort","target":12345}`,
		`{"type":"fetch-response","id":12345,"status":200}`,
		`{"type":"fetch-chunk","id":12345,"data":"x"}`,
		`{"type":"fetch-end","id":12345}`,
		`{"type":"generate-piece","id":12345,"value":"x"}`,
		`{"type":"generate-end","id":12345}`,
	} {
		p.send(raw)
	}
	p.ok("hello", helloVersion)
	require.Empty(t, p.replies)
	require.Empty(t, p.drain())
}

func TestHandler_Query(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{}`)
	for raw, want := range map[string]string{
		`{"type":"usage","session":1}`:          `{"type":"reply","id":0,"ok":true,"value":{"contextUsage":0,"contextWindow":32768}}`,
		`{"type":"history","session":1}`:        `{"type":"reply","id":0,"ok":true,"value":[]}`,
		`{"type":"history","session":2}`:        `{"type":"reply","id":0,"error":{"name":"InvalidStateError","message":"the session has been destroyed (session key 2)"}}`,
		`{"type":"prompt","session":1}`:         `{"type":"reply","id":0,"error":{"name":"TypeError","message":"langmodel channel: cannot query \"prompt\""}}`,
		`nonsense`:                              `{"type":"reply","id":0,"error":{"name":"TypeError","message":"langmodel channel: malformed query: invalid character 'o' in literal null (expecting 'u')"}}`,
		`{"type":"usage","session":"1","id":1}`: `{"type":"reply","id":0,"error":{"name":"TypeError","message":"langmodel channel: malformed query: session: expected an integer"}}`,
	} {
		require.Equal(t, want, string(p.h.Query([]byte(raw))), raw)
	}
}

// TestCreate_StopOptions: toolUseConfig.maxRepeatedCalls and maxTokens take a whole
// number; anything else is a TypeError that names the field.
func TestCreate_StopOptions(t *testing.T) {
	for _, tc := range []struct {
		name, use, want string
	}{
		{"maxRepeatedCalls negative", `"maxRepeatedCalls":-1`, "toolUseConfig.maxRepeatedCalls must not be negative"},
		{"maxRepeatedCalls fractional", `"maxRepeatedCalls":1.5`, "toolUseConfig: maxRepeatedCalls: expected an integer"},
		{"maxRepeatedCalls a string", `"maxRepeatedCalls":"3"`, "toolUseConfig: maxRepeatedCalls: expected an integer"},
		{"maxTokens negative", `"maxTokens":-5`, "toolUseConfig.maxTokens must not be negative"},
		{"maxTokens a boolean", `"maxTokens":true`, "toolUseConfig: maxTokens: expected an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			e := p.fails("create", `"session":1,"options":{"toolUseConfig":{`+tc.use+`}}`, "TypeError")
			require.Contains(t, e["message"], tc.want)
		})
	}
	p := newPage(t)
	for i, use := range []string{`"maxRepeatedCalls":0`, `"maxRepeatedCalls":null`, `"maxRepeatedCalls":7,"maxTokens":0`, `"maxTokens":100000`} {
		p.ok("create", fmt.Sprintf(`"session":%d,"options":{"toolUseConfig":{%s}}`, i+1, use))
	}
}

// TestHandler_StepUsageEvent: a stepusage event per model step, only once the page
// listens, its detail the step's tokens (the backend's or the estimate, marked), calls
// and duration; a usage query answers session.usage.
func TestHandler_StepUsageEvent(t *testing.T) {
	p := newPage(t)
	p.deaf = true
	p.tools[7] = func(*fakePage, msg) (any, string) { return "sunny", "" }
	call := `{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}],"usage":{"inputTokens":40,"outputTokens":6}}`
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+script(call, `{"text":"a"}`, call, `{"text":"b"}`)+`}`)
	steps := func() []map[string]any {
		var out []map[string]any
		for _, m := range p.drain() {
			if m["type"] == "stepusage" {
				d := m["detail"].(map[string]any)
				ms, err := d["duration"].(jsonv.Number).Float64()
				require.NoError(t, err)
				require.GreaterOrEqual(t, ms, 0.0)
				delete(d, "duration")
				out = append(out, d)
			}
		}
		p.log = nil
		return out
	}
	p.ok("prompt", `"session":1,"input":"x"`)
	require.Empty(t, steps(), "nobody listens")
	p.send(`{"type":"listen","session":1,"event":"stepusage"}`)
	p.ok("prompt", `"session":1,"input":"y"`)
	got := steps()
	require.Len(t, got, 2)
	require.Equal(t, map[string]any{"inputTokens": jsonv.Number("40"), "outputTokens": jsonv.Number("6"), "estimated": false, "toolCalls": jsonv.Number("1")}, got[0])
	require.Equal(t, true, got[1]["estimated"])
	require.Equal(t, jsonv.Number("1"), got[1]["outputTokens"], `"b": the estimate`)
	u := p.ok("usage", `"session":1`).(map[string]any)["usage"].(map[string]any)
	require.Equal(t, jsonv.Number("4"), u["steps"])
	require.Equal(t, jsonv.Number("2"), u["estimatedSteps"])
	require.Equal(t, jsonv.Number("14"), u["outputTokens"], "6 + 1 + 6 + 1")
}
