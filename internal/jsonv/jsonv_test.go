package jsonv_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// stdDecode is what jsonv.Decode must agree with: json.Decoder with UseNumber, one
// value, nothing but white space after it.
func stdDecode(data []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	err := d.Decode(&v)
	if err == nil && len(bytes.TrimLeft(data[d.InputOffset():], " \t\r\n")) == 0 {
		return ownNumbers(v), nil
	}
	return nil, json.Unmarshal(data, new(json.RawMessage)) // Unmarshal's error, for the message
}

// ownNumbers gives encoding/json's tree with its json.Numbers as jsonv.Numbers.
func ownNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return jsonv.Number(v)
	case []any:
		for i := range v {
			v[i] = ownNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = ownNumbers(v[k])
		}
	}
	return v
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     any
	}{
		{"null", `null`, nil},
		{"booleans in an array", ` [true, false] `, []any{true, false}},
		{"numbers keep their text", `[0, -1.50, 1e400, 12345678901234567890]`, []any{jsonv.Number("0"), jsonv.Number("-1.50"), jsonv.Number("1e400"), jsonv.Number("12345678901234567890")}},
		{"nested object", `{"a":{"b":[{}]},"c":""}`, map[string]any{"a": map[string]any{"b": []any{map[string]any{}}}, "c": ""}},
		{"the last duplicate key wins", `{"a":1,"a":2}`, map[string]any{"a": jsonv.Number("2")}},
		{"escapes", `"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"`, "\"\\/\b\f\n\r\té😀"},
		{"a lone surrogate becomes U+FFFD", `"\ud83dx\udc00"`, "\uFFFDx\uFFFD"},
		{"a high surrogate before a non-surrogate escape", `"\ud83d\u0041"`, "\uFFFDA"},
		{"invalid UTF-8 becomes U+FFFD", "\"a\xffb\"", "a\uFFFDb"},
		{"invalid UTF-8 next to an escape", "\"\xff\\n\"", "\uFFFD\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonv.Decode([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			std, err := stdDecode([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, std, got, "encoding/json decodes it so")
		})
	}
}

func TestDecodeErrorsReadAsEncodingJSONs(t *testing.T) {
	for _, tc := range []struct{ name, in, msg string }{
		{"empty", ``, "unexpected end of JSON input"},
		{"cut short", `{"a":[1,`, "unexpected end of JSON input"},
		{"trailing value", `{} {}`, "invalid character '{' after top-level value"},
		{"leading zero", `01`, "invalid character '1' after top-level value"},
		{"bad escape", `"\x"`, `invalid character 'x' in string escape code`},
		{`bad \u escape`, `"\u12G4"`, `invalid character 'G' in \u hexadecimal character escape`},
		{"control character in a string", "\"a\nb\"", `invalid character '\n' in string literal`},
		{"missing colon", `{"a" 1}`, "invalid character '1' after object key"},
		{"trailing comma", `[1,]`, "invalid character ']' looking for beginning of value"},
		{"bare word", `nul`, "invalid character ' ' in literal null (expecting 'l')"},
		{"too deep", strings.Repeat("[", 10001), "invalid character '[' exceeded max depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsonv.Decode([]byte(tc.in))
			require.Error(t, err)
			var se *jsonv.SyntaxError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.msg, err.Error())
			_, std := stdDecode([]byte(tc.in))
			require.EqualError(t, std, err.Error())
		})
	}
}

func TestDecodePrefixStopsAfterTheFirstValue(t *testing.T) {
	v, n, err := jsonv.DecodePrefix([]byte(` {"a":1} tail`))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": jsonv.Number("1")}, v)
	require.Equal(t, 8, n)
}

func TestMarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted", map[string]any{"b": 1, "a": []any{nil, true}}, `{"a":[null,true],"b":1}`},
		{"HTML-safe strings", "<a href='x'>&</a>\u2028", `"\u003ca href='x'\u003e\u0026\u003c/a\u003e\u2028"`},
		{"control characters", "\x00\x1f\b\f\n\r\t\x7f", `"\u0000\u001f\b\f\n\r\t` + "\x7f" + `"`},
		{"invalid UTF-8", "a\xffb", `"a\ufffdb"`},
		{"numbers as given", []any{jsonv.Number("1.50"), jsonv.Number(""), int64(-3)}, `[1.50,0,-3]`},
		{"floats as JavaScript prints them", []any{1.0, 1e21, 1e-7, 123456.789, -0.000001}, `[1,1e+21,1e-7,123456.789,-0.000001]`},
		{"nil slices and maps are null", []any{[]any(nil), map[string]any(nil), []string(nil)}, `[null,null,null]`},
		{"string maps and lists", map[string]any{"m": map[string]string{"z": "<", "a": ""}, "l": []string{"x"}}, `{"l":["x"],"m":{"a":"","z":"\u003c"}}`},
		{"raw messages compacted", []any{jsonv.RawMessage(" { \"a\" : \"<\" } ")}, `[{"a":"\u003c"}]`},
		{"raw messages HTML-escaped", []any{jsonv.RawMessage("{\"<a>\":\"&b\u2028c\u2029\"}"), jsonv.RawMessage(`">&<"`)}, `[{"\u003ca\u003e":"\u0026b\u2028c\u2029"},"\u003e\u0026\u003c"]`},
		{"raw messages with other characters after E2 kept", []any{jsonv.RawMessage("\"\u2027\u202a\u20ac\"")}, "[\"\u2027\u202a\u20ac\"]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonv.Marshal(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			std, err := json.Marshal(tc.in)
			require.NoError(t, err)
			require.Equal(t, string(std), string(got), "encoding/json encodes it so")
		})
	}
}

func TestMarshalErrorsLeaveTheBufferAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		msg  string
	}{
		{"NaN", math.NaN(), "json: unsupported value: NaN"},
		{"infinity in a map", map[string]any{"a": math.Inf(1)}, "json: unsupported value: +Inf"},
		{"a bad number", jsonv.Number("1x"), `json: invalid number literal "1x"`},
		{"a Go type the package does not know", struct{}{}, "json: unsupported type: struct {}"},
		{"a bad raw message", jsonv.RawMessage("{"), "json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := jsonv.Append([]byte("prefix"), tc.in)
			require.EqualError(t, err, tc.msg)
			require.Equal(t, "prefix", string(out))
		})
	}
}

// FuzzAgreesWithEncodingJSON: on any input, Decode and the Reader succeed exactly when
// encoding/json does, with the same value or the same error (the Reader read member by
// member, and with Raw, as the product reads it); Members and Elements split a valid
// document into the same values; and Marshal of the value is json.Marshal's bytes.
func FuzzAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9"],"b":null}`, `"\ud800"`, "\"\xff\"", `[01]`, `{"a":}`, ` true `, `"<&>"`, `[1e-7,-0]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		require.Equal(t, json.Valid(data), jsonv.Valid(data), "Valid, input %q", data)
		r := jsonv.Reader{Data: data}
		read := readAny(&r, 0)
		if !r.End() {
			_, stdErr := stdDecode(data)
			require.Error(t, stdErr, "Reader broke on valid input %q", data)
			require.EqualError(t, r.SyntaxErr(), stdErr.Error(), "Reader, input %q", data)
		} else {
			want, stdErr := stdDecode(data)
			require.NoError(t, stdErr, "Reader read invalid input %q", data)
			require.Equal(t, want, read, "Reader, input %q", data)
		}
		got, err := jsonv.Decode(data)
		want, stdErr := stdDecode(data)
		r = jsonv.Reader{Data: data}
		viaRaw := rawAny(&r, 0)
		require.Equal(t, stdErr == nil, r.End(), "Reader with Raw, input %q", data)
		if stdErr == nil {
			require.Equal(t, want, viaRaw, "Reader with Raw, input %q", data)
		}
		if stdErr != nil {
			require.EqualError(t, err, stdErr.Error(), "input %q", data)
			return
		}
		require.NoError(t, err, "input %q", data)
		require.Equal(t, want, got, "input %q", data)
		require.Equal(t, want, membersAny(data, jsonv.SkipSpace(data, 0)), "Members and Elements, input %q", data)
		enc, err := jsonv.Marshal(got)
		require.NoError(t, err)
		stdEnc, err := json.Marshal(want)
		require.NoError(t, err)
		require.Equal(t, string(stdEnc), string(enc), "input %q", data)
	})
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{` {"a":[1,2.5e3,"x\u00e9",true,false,null],"b":{}} `, true},
		{`[]`, true},
		{"\"\xff\"", true}, // invalid UTF-8 is a valid string, as encoding/json reads it
		{`[01]`, false},
		{`{"a":}`, false},
		{`{"a" 1}`, false},
		{`[1,]`, false},
		{`{"a":1,}`, false},
		{`tru`, false},
		{`"a` + "\n" + `b"`, false}, // a raw control character
		{`1 2`, false},
		{``, false},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), true},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), false}, // encoding/json's depth
	} {
		require.Equal(t, json.Valid([]byte(tc.doc)), tc.want, "encoding/json on %.40q", tc.doc)
		require.Equal(t, tc.want, jsonv.Valid([]byte(tc.doc)), "%.40q", tc.doc)
	}
}

// historyDoc is a history as make bench-peers passes it back: short messages, in bulk.
var historyDoc = func() []byte {
	var b strings.Builder
	b.WriteString(`[{"role":"system","content":"You are a benchmark."}`)
	for i := 1; i < 1000; i++ {
		b.WriteString(`,{"role":"user","content":"message ` + strconv.Itoa(i) + ` of the history"}`)
	}
	return []byte(b.String() + "]")
}()

// BenchmarkValid: jsonv.Valid against encoding/json's, side by side, on benchDoc and on
// a history.
func BenchmarkValid(b *testing.B) {
	for name, doc := range map[string][]byte{"doc": benchDoc, "history": historyDoc} {
		b.Run("jsonv/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				jsonv.Valid(doc)
			}
		})
		b.Run("encoding-json/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				json.Valid(doc)
			}
		})
	}
}

// benchDoc is the shape the engine reads most: a prompt with messages, parts and tool
// calls, as the page sends it.
var benchDoc = []byte(`{"messages":[` + strings.Repeat(`{"role":"user","content":[{"type":"text","value":"What is the weather in Paris, and should I take an umbrella? \u00e9"}]},{"role":"tool-call","content":{"type":"tool-call","value":{"callID":"c1","name":"get_weather","arguments":{"city":"Paris","days":3,"units":"metric"}}}},`, 20) + `{"role":"user","content":"ok"}]}`)

// BenchmarkDecode: jsonv against encoding/json (Decoder with UseNumber), side by side.
func BenchmarkDecode(b *testing.B) {
	b.Run("jsonv", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		for b.Loop() {
			if _, err := jsonv.Decode(benchDoc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		for b.Loop() {
			if _, err := stdDecode(benchDoc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMarshal: re-encoding a decoded document, jsonv against encoding/json.
func BenchmarkMarshal(b *testing.B) {
	v, err := jsonv.Decode(benchDoc)
	require.NoError(b, err)
	b.Run("jsonv", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		for b.Loop() {
			if _, err := jsonv.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		for b.Loop() {
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// AppendStringKeepHTML writes what json.Encoder writes with SetEscapeHTML(false), and
// AppendString what json.Marshal writes, every ASCII byte included.
func TestAppendStringKeepHTML(t *testing.T) {
	var every []byte
	for c := range 0x80 {
		every = append(every, byte(c))
	}
	for _, s := range []string{"<a href='x'>&amp;</a>", "\x00\b\f\n\r\t\"\\", "a\xffb\u2028\u2029é", string(every)} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		require.Equal(t, strings.TrimSuffix(want.String(), "\n"), string(jsonv.AppendStringKeepHTML(nil, s)), "%q", s)
		std, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(std), string(jsonv.AppendString(nil, s)), "%q", s)
	}
}

// readAny reads the value at r's cursor as Decode would, through the Reader's API.
func readAny(r *jsonv.Reader, depth int) any {
	switch c := r.Peek(); {
	case c == '{':
		m := map[string]any{}
		r.Object(depth, func(key jsonv.Key, depth int) { m[string(key.Text)] = readAny(r, depth) })
		return m
	case c == '[':
		a := []any{}
		r.Array(depth, func(depth int) { a = append(a, readAny(r, depth)) })
		return a
	case c == '"':
		return r.Str()
	case c == '-' || c >= '0' && c <= '9':
		return jsonv.Number(r.Number())
	case c == 't':
		r.Literal("true")
		return true
	case c == 'f':
		r.Literal("false")
		return false
	case c == 'n':
		r.Literal("null")
		return nil
	}
	r.Skip(depth) // not a value: breaks the reader
	return nil
}

// rawAny reads the value at r's cursor as Decode would, taking each member and element
// of a container, and a value that is none, with Raw and decoding its text.
func rawAny(r *jsonv.Reader, depth int) any {
	switch r.Peek() {
	case '{':
		m := map[string]any{}
		r.Object(depth, func(key jsonv.Key, depth int) { m[string(key.Text)] = decodeRaw(r.Raw(depth)) })
		return m
	case '[':
		a := []any{}
		r.Array(depth, func(depth int) { a = append(a, decodeRaw(r.Raw(depth))) })
		return a
	}
	return decodeRaw(r.Raw(depth))
}

// decodeRaw is Decode's value for text Raw gave, nil where Raw stopped at a syntax error.
func decodeRaw(text []byte) any {
	v, _ := jsonv.Decode(text)
	return v
}

// membersAny reads the well-formed value at data[i] as Decode would, with Members and
// Elements splitting its containers.
func membersAny(data []byte, i int) any {
	switch data[i] {
	case '{':
		m := map[string]any{}
		for k, v := range jsonv.Members(data, i) {
			key, err := jsonv.Decode(k)
			if err != nil {
				panic(err)
			}
			m[key.(string)] = membersAny(v, 0)
		}
		return m
	case '[':
		a := []any{}
		for v := range jsonv.Elements(data, i) {
			a = append(a, membersAny(v, 0))
		}
		return a
	}
	end, ok := jsonv.ValueEnd(data, i)
	if !ok {
		panic("not well formed")
	}
	v, err := jsonv.Decode(data[i:end])
	if err != nil {
		panic(err)
	}
	return v
}
