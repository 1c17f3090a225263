package wasm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Prompt API's rules (internal/testing/moduletest/conformance.go has them all) as the
// channel carries them: one row each, the exact name and message the page sees (js/
// builds the exception from them).

func TestHandler_ResponseConstraint(t *testing.T) {
	for _, tc := range []struct {
		name, turns, constraint, text, want, message string
	}{
		{"a custom or scripted model that ignores the schema is repaired once", `{"text":"not json at all"},{"text":"{\"ok\":true}"}`, `{"type":"object","required":["ok"]}`, `{"ok":true}`, "", ""},
		{"an answer that fails twice is a SyntaxError", `{"text":"not json at all"},{"text":"still not"}`, `{"type":"object"}`, "", "SyntaxError",
			`the model's answer does not match the responseConstraint: it is not JSON (invalid character 's' looking for beginning of value)`},
		{"a RegExp crosses as {pattern}", `{"text":"nope"},{"text":"42"}`, `{"pattern":"^\\d+$"}`, "42", "", ""},
		{"an unsupported schema feature", `{"text":"x"}`, `{"$dynamicRef":"#x"}`, "", "NotSupportedError", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.ok("create", `"session":1,"options":{`+script(tc.turns)+`}`)
			fields := `"session":1,"input":"q","responseConstraint":` + tc.constraint
			if tc.want != "" {
				e := p.fails("prompt", fields, tc.want)
				if tc.message != "" {
					require.Equal(t, tc.message, e["message"])
				}
				require.Equal(t, "[]", compact(t, p.ok("history", `"session":1`)), "history unchanged")
				return
			}
			r := p.ok("prompt", fields).(map[string]any)
			require.Equal(t, tc.text, r["text"])
		})
	}
}

// TestHandler_CreateOptions: create() and availability() on the same options, per the
// spec's "validate and canonicalize language model options" (RangeError, TypeError: both
// reject) and "compute language model options availability" (NotSupportedError in
// create(), "unavailable" in availability()). Sampling values out of range are the
// exception Chrome's tests make: create() rejects with RangeError, availability()
// answers "unavailable".
func TestHandler_CreateOptions(t *testing.T) {
	const openai = `"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m"}`
	for _, tc := range []struct {
		name, options string
		want          string // "" (created, "available") or the error name
		message       string
	}{
		{"the spec's five expected input types, and the tool-result alias", `"expectedInputs":[{"type":"text"},{"type":"image"},{"type":"audio"},{"type":"tool-call"},{"type":"tool-response"},{"type":"tool-result"}]`, "", ""},
		{"canonical tags are accepted in any case", `"expectedInputs":[{"type":"text","languages":["EN","en-us"]}],"expectedOutputs":[{"type":"text","languages":["en-GB"]}]`, "", ""},
		{"an invalid tag in expectedInputs", `"expectedInputs":[{"type":"text","languages":["en-abc-invalid"]}]`, "RangeError", `invalid language tag: "en-abc-invalid"`},
		{"an invalid tag in expectedOutputs", `"expectedOutputs":[{"type":"text","languages":["en","x-private"]}]`, "RangeError", `invalid language tag: "x-private"`},
		{"languages that are not strings", `"expectedInputs":[{"type":"text","languages":[7]}]`, "TypeError", `invalid option: expectedInputs[0].languages must be an array of strings`},
		{"an invalid tag is a RangeError before an unknown backend", `"backend":{"kind":"llama"},"expectedInputs":[{"type":"text","languages":["en-abc-invalid"]}]`, "RangeError", `invalid language tag: "en-abc-invalid"`},
		{"the scripted model serves English only", `"expectedInputs":[{"type":"text","languages":["en","unk"]}]`, "NotSupportedError", `unsupported language: expectedInputs[0].languages: "unk" is not a language this backend serves`},
		{"the scripted model does not write French", `"expectedOutputs":[{"type":"text","languages":["fr-CA"]}]`, "NotSupportedError", `unsupported language: expectedOutputs[0].languages: "fr-CA" is not a language this backend serves`},
		{"an OpenAI-compatible server serves the common languages", openai + `,"expectedInputs":[{"type":"text","languages":["fr","zh-Hant","yue"]}]`, "", ""},
		{"but not an unknown one", openai + `,"expectedInputs":[{"type":"audio","languages":["unk"]}]`, "NotSupportedError", `unsupported language: expectedInputs[0].languages: "unk" is not a language this backend serves`},
		{"samplingMode with temperature", `"samplingMode":"creative","temperature":0.5`, "TypeError", "invalid option: samplingMode cannot be given together with temperature or topK"},
		{"samplingMode with topK", `"samplingMode":"balanced","topK":3`, "TypeError", "invalid option: samplingMode cannot be given together with temperature or topK"},
		{"an unknown samplingMode", `"samplingMode":"wild"`, "TypeError", `invalid option: samplingMode: "wild" is not a sampling mode`},
		{"temperature and topK alone", `"temperature":0.6000000238418579,"topK":10`, "", ""},
		{"a negative temperature", `"temperature":-1`, "RangeError", "invalid option: temperature must not be negative"},
		{"a topK below 1", `"topK":0.5`, "RangeError", "invalid option: topK must be at least 1"},
		{"a negative topK", `"topK":-3,"temperature":0.5`, "RangeError", "invalid option: topK must be at least 1"},
		{"a fractional topK above 1", `"topK":2.5`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			if tc.want == "" {
				p.ok("create", `"session":1,"options":{`+tc.options+`}`)
				require.Equal(t, "available", p.ok("availability", `"options":{`+tc.options+`}`))
				return
			}
			e := p.fails("create", `"session":1,"options":{`+tc.options+`}`, tc.want)
			require.Equal(t, tc.message, e["message"])
			outOfRange := tc.want == "RangeError" && !strings.Contains(tc.message, "language tag")
			if tc.want == "NotSupportedError" || outOfRange {
				require.Equal(t, "unavailable", p.ok("availability", `"options":{`+tc.options+`}`))
				return
			}
			e = p.fails("availability", `"options":{`+tc.options+`}`, tc.want)
			require.Equal(t, tc.message, e["message"])
		})
	}
}

func TestHandler_SamplingModeReported(t *testing.T) {
	p := newPage(t)
	info := p.ok("create", `"session":1,"options":{}`).(map[string]any)
	require.Equal(t, "balanced", info["samplingMode"], "a session created without one")
	info = p.ok("create", `"session":2,"options":{"samplingMode":"most-creative"}`).(map[string]any)
	require.Equal(t, "most-creative", info["samplingMode"])
	info = p.ok("clone", `"session":2,"clone":3`).(map[string]any)
	require.Equal(t, "most-creative", info["samplingMode"], "a clone keeps it")
}

// TestHandler_CallerSuppliedToolValues: caller-supplied tool values checked first (the
// face's DataErrors come before any of these), then the pairing: a response for a call
// the session never made is kept, unpaired (docs/decisions.md).
func TestHandler_CallerSuppliedToolValues(t *testing.T) {
	const both = `"expectedInputs":[{"type":"tool-call"},{"type":"tool-response"}]`
	for _, tc := range []struct {
		name, input, want, message string
		history                    string
	}{
		{"arguments that are not a dictionary", `[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c","name":"w","arguments":[]}}]}]`,
			"DataError", "malformed tool call: message 0 part 0: arguments must be an object, not an array", ""},
		{"a text part with an object value is its JSON text", `[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c","name":"w","arguments":{}}}]},{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[{"type":"text","value":{"t":1}}]}}]}]`,
			"", "", `[{"content":[{"type":"tool-call","value":{"arguments":{},"callID":"c","callId":"c","name":"w"}}],"role":"tool-call"},{"content":[{"type":"tool-result","value":{"callID":"c","callId":"c","name":"w","result":[{"type":"text","value":"{\"t\":1}"}]}}],"role":"tool-result"}]`},
		{"a bad value is refused before the pairing is looked at", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"nope","name":"w","result":[{"type":"text","value":{"type":"bytes","base64":"AA=="}}]}}]}]`,
			"DataError", "malformed tool result: message 0 part 0: malformed tool result: result part 0: a text part holds binary data; give it the type image or audio", ""},
		{"a response for a call never made is kept", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"x1","name":"w","result":"sun"}}]}]`,
			"", "", `[{"content":[{"type":"tool-result","value":{"callID":"x1","callId":"x1","name":"w","result":[{"type":"text","value":"sun"}]}}],"role":"tool-result"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.ok("create", `"session":1,"options":{`+both+`}`)
			if tc.want != "" {
				e := p.fails("append", `"session":1,"input":`+tc.input, tc.want)
				require.Equal(t, tc.message, e["message"])
				require.Equal(t, "[]", compact(t, p.ok("history", `"session":1`)))
				return
			}
			p.ok("append", `"session":1,"input":`+tc.input)
			require.Equal(t, tc.history, compact(t, p.ok("history", `"session":1`)))
		})
	}
}
