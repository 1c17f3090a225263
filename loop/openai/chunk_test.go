package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// What the stream reader relays of a body: "text …", "usage {input output cachedTokens
// cached}", "call id name arguments", then "error …" if it failed (relay).
const (
	bad       = "error the model failed: malformed data from the server: "
	midStream = "error the model failed: the server reported an error mid-stream: "
	dropped   = "error the model failed: the stream ended before [DONE]: the connection was dropped"
)

// A chunk at the edges of JSON, sent as a plain JSON completion: what is relayed. Syntax
// errors are worded as encoding/json words them; a member of the wrong type is named with
// its path (choices[].index) and both types.
func TestReadStream_Chunks(t *testing.T) {
	for _, tc := range []struct {
		name, chunk string
		want        []string
	}{
		{"keys in another case", `{"Choices":[{"INDEX":0,"Delta":{"Content":"hi","Tool_Calls":[{"Index":0,"ID":"c","Function":{"Name":"f","Arguments":"{}"}}]},"Finish_Reason":"stop"}],"USAGE":{"Prompt_Tokens":3,"completion_TOKENS":4}}`, []string{`text hi`, `usage {3 4 0 false}`, `call c f {}`}},
		{"keys with escapes", `{"\u0063hoices":[{"delta":{"c\u006fntent":"hi"}}],"usag\u0065":{"prompt_tokens":1}}`, []string{`text hi`, `usage {1 0 0 false}`}},
		{"keys folded beyond ASCII (Kelvin sign, long s)", `{"choice\u017f":[{"delta":{"content":"x"}}],"usage":{"prompt_to\u212aens":5}}`, []string{`text x`, `usage {5 0 0 false}`}},
		{"a key that only looks alike", `{"choices_":[{"delta":{"content":"x"}}],"choice":[],"usage ":{}}`, nil},
		{"null everywhere", `{"choices":null,"usage":null,"error":null}`, nil},
		{"null choice", `{"choices":[null]}`, nil},
		{"null members", `{"choices":[{"index":null,"delta":null,"message":null,"finish_reason":null}]}`, nil},
		{"null tool call makes an empty call", `{"choices":[{"delta":{"content":null,"tool_calls":[null]}}]}`, []string{`call   {}`}},
		{"null function and index", `{"choices":[{"delta":{"tool_calls":[{"index":null,"id":null,"function":null}]}}]}`, []string{`call   {}`}},
		{"top-level null", `null`, nil},
		{"top-level array", `[]`, []string{bad + `the chunk is an array, not an object`}},
		{"top-level string", `"x"`, []string{bad + `the chunk is a string, not an object`}},
		{"top-level number", `1`, []string{bad + `the chunk is a number, not an object`}},
		{"top-level true", `true`, []string{bad + `the chunk is a boolean, not an object`}},
		{"empty", ``, []string{bad + `unexpected end of JSON input`}},
		{"white space", " \t\r\n", []string{bad + `unexpected end of JSON input`}},
		{"choices is an object", `{"choices":{}}`, []string{bad + `choices is an object, not an array`}},
		{"a choice is a number", `{"choices":[1]}`, []string{bad + `choices[] is a number, not an object`}},
		{"index is a string", `{"choices":[{"index":"0","delta":{"content":"x"}}]}`, []string{bad + `choices[].index is a string, not an integer`}},
		{"index is 1.0", `{"choices":[{"index":1.0}]}`, []string{bad + `choices[].index is the number 1.0, not an integer`}},
		{"index is 1e0", `{"choices":[{"index":1e0}]}`, []string{bad + `choices[].index is the number 1e0, not an integer`}},
		{"index is -0", `{"choices":[{"index":-0,"delta":{"content":"x"}}]}`, []string{`text x`}},
		{"index is the largest int", `{"choices":[{"index":9223372036854775807,"delta":{"content":"x"}}]}`, nil},
		{"index overflows", `{"choices":[{"index":9223372036854775808}]}`, []string{bad + `choices[].index is the number 9223372036854775808, not an integer`}},
		{"index is the smallest int", `{"choices":[{"index":-9223372036854775808,"delta":{"content":"x"}}]}`, nil},
		{"index underflows", `{"choices":[{"index":-9223372036854775809}]}`, []string{bad + `choices[].index is the number -9223372036854775809, not an integer`}},
		{"tokens are decimals", `{"usage":{"prompt_tokens":1.5}}`, []string{bad + `usage.prompt_tokens is the number 1.5, not an integer`}},
		{"usage is an array", `{"usage":[]}`, []string{bad + `usage is an array, not an object`}},
		{"usage is empty", `{"usage":{}}`, []string{`usage {0 0 0 false}`}},
		{"content is a number", `{"choices":[{"delta":{"content":5}}]}`, []string{bad + `choices[].delta.content is a number, not a string`}},
		{"content is an object", `{"choices":[{"delta":{"content":{"a":1}}}]}`, []string{bad + `choices[].delta.content is an object, not a string`}},
		{"finish_reason is true", `{"choices":[{"finish_reason":true}]}`, []string{bad + `choices[].finish_reason is a boolean, not a string`}},
		{"message is a string", `{"choices":[{"message":"x"}]}`, []string{bad + `choices[].message is a string, not an object`}},
		{"delta is an array", `{"choices":[{"delta":[]}]}`, []string{bad + `choices[].delta is an array, not an object`}},
		{"tool_calls is an object", `{"choices":[{"delta":{"tool_calls":{}}}]}`, []string{bad + `choices[].delta.tool_calls is an object, not an array`}},
		{"a tool call id is a number", `{"choices":[{"delta":{"tool_calls":[{"id":5}]}}]}`, []string{bad + `choices[].delta.tool_calls[].id is a number, not a string`}},
		{"function is an array", `{"choices":[{"delta":{"tool_calls":[{"function":[]}]}}]}`, []string{bad + `choices[].delta.tool_calls[].function is an array, not an object`}},
		{"a function name is false", `{"choices":[{"delta":{"tool_calls":[{"function":{"name":false}}]}}]}`, []string{bad + `choices[].delta.tool_calls[].function.name is a boolean, not a string`}},
		{"a mismatch, then a syntax error", `{"choices":5, "x": }`, []string{bad + `invalid character '}' looking for beginning of value`}},
		{"a mismatch, then trailing data", `{"choices":5} x`, []string{bad + `invalid character 'x' after top-level value`}},
		{"unknown members of every kind", `{"id":"x","n":-1.5e+10,"b":[true,false,null,{"a":[]}],"choices":[{"logprobs":{"content":[{"token":"a","bytes":[97]}]},"delta":{"role":"assistant","content":"ok"}}],"z":{}}`, []string{`text ok`}},
		{"arguments as an object, spaced", `{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":{ "a" : [1, 2] }}}]}}]}`, []string{`call c f { "a" : [1, 2] }`}},
		{"arguments as a number, an array, true", `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":5}},{"function":{"arguments":[1]}},{"function":{"arguments":true}}]}}]}`, []string{`call   5`, `call   [1]`, `call   true`}},
		{"arguments with escapes", `{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f","arguments":"{\"q\":\"\\u00e9 \\\"x\\\" \u00e9\"}"}}]}}]}`, []string{`call  f {"q":"\u00e9 \"x\" é"}`}},
		{"arguments with a lone surrogate", `{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f","arguments":"\ud800x\udc00\ud83d\ude00"}}]}}]}`, []string{"call  f �x�😀"}},
		{"arguments with invalid UTF-8", "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"a\xffb\xc3\"}}]}}]}", []string{"call  f a�b�"}},
		{"content with invalid UTF-8", "{\"choices\":[{\"delta\":{\"content\":\"a\xff\xfeb\"}}]}", []string{"text a��b"}},
		{"content with escapes", `{"choices":[{"delta":{"content":"tab\there \/ \b\f\n\r \u2028 \uD83D\uDE00"}}]}`, []string{"text tab\there / \b\f\n\r \u2028 😀"}},
		{"arguments null, empty, spaces", `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":null}},{"function":{"arguments":""}},{"function":{"arguments":"  "}}]}}]}`, []string{`call   {}`, `call   {}`, `call   {}`}},
		{"an empty message hides the delta", `{"choices":[{"delta":{"content":"d"},"message":{}}]}`, nil},
		{"a null message does not", `{"choices":[{"delta":{"content":"d"},"message":null}]}`, []string{`text d`}},
		{"choices of other indexes are skipped", `{"choices":[{"index":1,"delta":{"content":"one"}},{"index":0,"delta":{"content":"zero"},"finish_reason":"stop"},{"delta":{"content":"again"}}]}`, []string{`text zero`, `text again`}},
		{"an error object", `{"error":{"message":"boom","type":"x"}}`, []string{midStream + `boom`}},
		{"an error string", `{"error":"boom"}`, []string{midStream + `boom`}},
		{"an error without message, spaced", `{"error":{"code":5 , "x": [1, 2]}}`, []string{midStream + `{"error":{"code":5 , "x": [1, 2]}}`}},
		{"an error message in another case", `{"error":{"Message":"boom"}}`, []string{midStream + `boom`}},
		{"an error number", `{"error":5}`, []string{midStream + `{"error":5}`}},
		{"an empty error string", `{"error":""}`, []string{midStream + `{"error":""}`}},
		{"an error whose message is a number", `{"error":{"message":5}}`, []string{midStream + `{"error":{"message":5}}`}},
		{"an error beside choices", `{"choices":[{"delta":{"content":"x"}}],"error":{"message":"late"}}`, []string{midStream + `late`}},
		{"a repeated choices merges", `{"choices":[{"delta":{"content":"a"}}],"choices":[{"index":0}]}`, []string{`text a`}},
		{"a repeated usage merges", `{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`, []string{`usage {1 2 0 false}`}},
		{"a null usage between resets", `{"usage":{"prompt_tokens":1},"usage":null,"usage":{"completion_tokens":2}}`, []string{`usage {0 2 0 false}`}},
		{"an empty repeat empties", `{"choices":[{"delta":{"content":"a"}},{"index":1}],"choices":[]}`, nil},
		{"a repeated message merges", `{"choices":[{"message":{"content":"a"}}],"choices":[{"message":{}}]}`, []string{`text a`}},
		{"a repeated content, null", `{"choices":[{"delta":{"content":"a","content":null}}]}`, nil},
		{"repeated tool_calls merge", `{"choices":[{"delta":{"tool_calls":[{"index":3,"function":{"name":"f"}}],"tool_calls":[{"id":"x"}]}}]}`, []string{`call x f {}`}},
		{"a repeated index, null", `{"choices":[{"delta":{"tool_calls":[{"index":3,"index":null,"id":"x"}]}}]}`, []string{`call x  {}`}},
		{"a repeated error, null", `{"error":{"message":"a"},"error":null}`, nil},
		{"a shorter repeat truncates", `{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}],"choices":[{}]}`, []string{`text a`}},
		{"trailing data", `{"choices":[]} x`, []string{bad + `invalid character 'x' after top-level value`}},
		{"two values", `{} {}`, []string{bad + `invalid character '{' after top-level value`}},
		{"white space around", " \n{\"choices\":[ { \"delta\" : { \"content\" : \"x\" } } ] }\r\n ", []string{`text x`}},
		{"a trailing comma", `{"choices":[{"index":0,}]}`, []string{bad + `invalid character '}' looking for beginning of object key string`}},
		{"a trailing comma in an array", `{"choices":[{},]}`, []string{bad + `invalid character ']' looking for beginning of value`}},
		{"a bad literal", `{"a":tru}`, []string{bad + `invalid character '}' in literal true (expecting 'e')`}},
		{"a leading zero", `{"a":01}`, []string{bad + `invalid character '1' after object key:value pair`}},
		{"a bad escape", `{"a":"\x"}`, []string{bad + `invalid character 'x' in string escape code`}},
		{"a short unicode escape", `{"a":"\u12"}`, []string{bad + `invalid character '"' in \u hexadecimal character escape`}},
		{"a control character", "{\"a\":\"\x01\"}", []string{bad + `invalid character '\x01' in string literal`}},
		{"no colon", `{"a" 1}`, []string{bad + `invalid character '1' after object key`}},
		{"a lone comma", `{,}`, []string{bad + `invalid character ',' looking for beginning of object key string`}},
		{"an open array", `[`, []string{bad + `unexpected end of JSON input`}},
		{"a bare minus", `{"a":-}`, []string{bad + `invalid character '}' in numeric literal`}},
		{"a bare point", `{"a":1.}`, []string{bad + `invalid character '}' after decimal point in numeric literal`}},
		{"a bare exponent", `{"a":1e}`, []string{bad + `invalid character '}' in exponent of numeric literal`}},
		{"a non-string key", `{1:2}`, []string{bad + `invalid character '1' looking for beginning of object key string`}},
		{"an unclosed string", `{"choices":[{"delta":{"content":"Hel`, []string{bad + `unexpected end of JSON input`}},
		{"an unclosed object", `{"choices":[]`, []string{bad + `unexpected end of JSON input`}},
		{"a NUL after the value", "{}\x00", []string{bad + `invalid character '\x00' after top-level value`}},
		{"a third, longer repeat starts its elements afresh", `{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}],"choices":[{}],"choices":[{},{}]}`, []string{`text a`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, relay(strings.NewReader(tc.chunk), "application/json"))
		})
	}
}

// deepChunk is a chunk whose unknown member nests n arrays, within a document that adds
// one more container (the object).
func deepChunk(n int) string {
	return `{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,"choices":[{"delta":{"content":"deep"}}]}`
}

// deepArguments is a chunk whose call arguments nest n arrays, inside the seven
// containers of a call (choices[] > delta > tool_calls[] > function > arguments).
func deepArguments(n int) string {
	return `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}]}}]}`
}

// A document may nest 10,000 containers, encoding/json's limit, and not one more, in
// the members the reader skips and in those it reads.
func TestReadStream_NestingLimit(t *testing.T) {
	tooDeep := bad + `invalid character '[' exceeded max depth`
	for _, tc := range []struct {
		name, chunk string
		want        []string
	}{
		{"an unknown member 9,998 deep, 9,999 with the chunk", deepChunk(9998), []string{"text deep"}},
		{"an unknown member 9,999 deep, 10,000 with the chunk", deepChunk(9999), []string{"text deep"}},
		{"an unknown member 10,000 deep, 10,001 with the chunk", deepChunk(10000), []string{tooDeep}},
		{"arguments 9,993 deep, 10,000 with the call", deepArguments(9993), []string{"call   " + strings.Repeat("[", 9993) + strings.Repeat("]", 9993)}},
		{"arguments 9,994 deep, 10,001 with the call", deepArguments(9994), []string{tooDeep}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, relay(strings.NewReader(tc.chunk), "application/json"))
		})
	}
}

// The recorded bodies (testdata/README.md), each read as its server sent it.
func TestReadStream_RecordedBodies(t *testing.T) {
	for _, tc := range []struct {
		file, contentType string
		want              []string
	}{
		{"completion.json", "application/json", []string{`text Plain answer.`, `usage {10 3 0 false}`}},
		{"dropped.sse", "text/event-stream", []string{`text Once upon`, `text  a time`, dropped}},
		{"invalid_chunk.sse", "text/event-stream", []string{`text Hel`, bad + `unexpected end of JSON input`}},
		{"llamacpp.sse", "text/event-stream", []string{`text Let`, `text  me`, `text  check`, `text .`, `usage {240 14 0 false}`, `call Vb7Kq2ZtX9mRw4LpN0cYhE5sJd8GfA3u search {"q":"say \"hi\" été"}`}},
		{"llamacpp_call.sse", "text/event-stream", []string{`usage {151 5 0 false}`, `call k9Tz2QmW7xPb4NcV1sLr8YhF0dGj3EaK get_weather {"city":"Paris"}`}},
		{"llamacpp_text.sse", "text/event-stream", []string{`text Sunny`, `text  in`, `text  Paris`, `text ,`, `text  `, `text 21`, `text °C`, `text .`, `usage {183 8 0 false}`}},
		{"ollama.sse", "text/event-stream", []string{`usage {151 21 0 false}`, `call call_k2x9m4qa get_weather {"city":"Paris"}`}},
		{"ollama_404.json", "application/json", []string{midStream + `model "llama9" not found, try pulling it first`}},
		{"openai_401.json", "application/json", []string{midStream + `Incorrect API key provided: sk-test-************************cdef. You can find your API key at https://platform.openai.com/account/api-keys.`}},
		{"openai_parallel.sse", "text/event-stream", []string{`usage {82 36 0 false}`, `call call_paris get_weather {"city": "Paris"}`, `call call_tokyo get_weather {"city": "Tokyo"}`}},
		{"vllm.sse", "text/event-stream", []string{`text Sunny`, `text  in Paris, 21°C.`, `usage {45 8 0 false}`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile("testdata/" + tc.file)
			require.NoError(t, err)
			require.Equal(t, tc.want, relay(bytes.NewReader(body), tc.contentType))
		})
	}
}

// A long stream relays every text delta as it came, then the calls assembled from their
// deltas, in the order of their indexes.
func TestReadStream_SyntheticStream(t *testing.T) {
	var want []string
	for i := range 30 {
		want = append(want, "text token "+strconv.Itoa(i)+" ")
	}
	for _, i := range []string{"0", "10", "20"} {
		want = append(want, `call c`+i+` f {"q": "part `+i+`"}`)
	}
	require.Equal(t, want, relay(bytes.NewReader(syntheticStream(30)), "text/event-stream"))
}

// typeMismatch is how decode words a member of the wrong type.
var typeMismatch = regexp.MustCompile(`^(the chunk|\S+) is (an object|an array|a string|a boolean|a number|the number \S+), not (a string|an integer|an object|an array)$`)

// FuzzDecodeChunk: a chunk is refused exactly when encoding/json refuses its syntax, with
// encoding/json's error; well-formed JSON is read, or refused for a member of the wrong
// type.
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range []string{`{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, `{"choices":{}}`, `{"a":tru}`, `[`, `{"usage":{"prompt_tokens":1.5}}`, "{}\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c chunk
		err := c.decode(data)
		var syntax *json.SyntaxError
		switch stdErr := json.Unmarshal(data, new(any)); {
		case errors.As(stdErr, &syntax):
			require.EqualError(t, err, stdErr.Error())
		case err != nil:
			require.NoError(t, stdErr)
			require.Regexp(t, typeMismatch, err.Error())
		}
	})
}
