package jsonv_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// requireCompactAgrees checks jsonv.Compact against encoding/json's Compact on one text:
// the same output, or the same error words and offset, and nothing appended on error.
func requireCompactAgrees(t *testing.T, src string) {
	t.Helper()
	var want, got bytes.Buffer
	want.WriteString("before")
	got.WriteString("before")
	werr := json.Compact(&want, []byte(src))
	gerr := jsonv.Compact(&got, []byte(src))
	require.Equal(t, want.String(), got.String(), "%q", src)
	if werr == nil {
		require.NoError(t, gerr, "%q", src)
		require.NoError(t, jsonv.Check([]byte(src)))
		return
	}
	require.Error(t, gerr, "%q", src)
	require.Equal(t, werr.Error(), gerr.Error(), "%q", src)
	gse, ok := errors.AsType[*jsonv.SyntaxError](gerr)
	require.True(t, ok)
	require.Zero(t, gse.Offset, "Compact's offset, as encoding/json's")
	// Check's offset is the one json.Unmarshal reports, which counts the bytes read.
	uerr := json.Unmarshal([]byte(src), new(json.RawMessage))
	wse, ok := errors.AsType[*json.SyntaxError](uerr)
	require.True(t, ok)
	cse, ok := errors.AsType[*jsonv.SyntaxError](jsonv.Check([]byte(src)))
	require.True(t, ok)
	require.Equal(t, wse.Error(), cse.Error(), "%q", src)
	require.Equal(t, wse.Offset, cse.Offset, "%q", src)
}

func TestCompact_AgreesWithEncodingJSON(t *testing.T) {
	for _, src := range []string{
		``, ` `, `{}`, ` { "a" : [ 1 , 2.5e-3 , true , false , null , "x y\" \\ \u00e9" ] } `,
		`[]`, `[ ]`, `[1,]`, `[,1]`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1 "b":2}`, `{1:2}`,
		`[1 2]`, `01`, `[01]`, `-`, `-x`, `-0`, `-01`, `1.`, `1.e3`, `1e`, `1e+`, `1E-2`, `1.5.2`,
		`tr`, `tru`, `trux`, `fals`, `falsy`, `nul`, `nulll`, `nx`, `t`, `f`, `n`,
		`"abc`, `"a\`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\uABCD"`, "\"a\x01\"", "\"\xff\"",
		`"a"b`, `1 2`, `{} x`, `[]]`, `{"a":{"b":[{}]}}`, `'a'`, `"'"`, "\t\r\n1\n", `{"a":"b"`,
		`[1,2`, `{"a"`, `{"a":`, `x`, "\xff", `}`, `]`, `:`, "\"\xe2\x80\xa8\"",
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10001),
	} {
		requireCompactAgrees(t, src)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e+3,"x\u00e9\n"],"b":{}}`, `[true,false,null]`, `1.`, `"\u12`, `tru`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		requireCompactAgrees(t, src)
		require.Equal(t, json.Valid([]byte(src)), jsonv.Valid([]byte(src)), "%q", src)
	})
}

// The wire types encoding/json reads and writes through their methods, as its own.
func TestRawMessageAndNumber_EncodingJSONWritesThemAsItsOwn(t *testing.T) {
	type wire struct {
		Raw  jsonv.RawMessage `json:"raw"`
		Nil  jsonv.RawMessage `json:"nil"`
		Num  jsonv.Number     `json:"num"`
		Zero jsonv.Number     `json:"zero"`
	}
	b, err := json.Marshal(wire{Raw: jsonv.RawMessage(`{"a":1}`), Num: "1.5e3"})
	require.NoError(t, err)
	require.Equal(t, `{"raw":{"a":1},"nil":null,"num":1.5e3,"zero":0}`, string(b))
	var back wire
	require.NoError(t, json.Unmarshal([]byte(`{"raw":[1, 2],"num":7}`), &back))
	require.Equal(t, jsonv.RawMessage(`[1, 2]`), back.Raw)
	require.Equal(t, jsonv.Number("7"), back.Num)
	require.EqualError(t, json.Unmarshal([]byte(`{"num":"7"}`), &back), `json: cannot unmarshal "7" into a Number`)
}

func TestNumber_Conversions(t *testing.T) {
	i, err := jsonv.Number("42").Int64()
	require.NoError(t, err)
	require.Equal(t, int64(42), i)
	_, err = jsonv.Number("4.2").Int64()
	require.EqualError(t, err, `strconv.ParseInt: parsing "4.2": invalid syntax`)
	x, err := jsonv.Number("4.2").Float64()
	require.NoError(t, err)
	require.Equal(t, 4.2, x)
	require.Equal(t, "4.2", jsonv.Number("4.2").String())
}

// BenchmarkCompact: jsonv.Compact against encoding/json's, side by side, on a tool call's
// arguments as a model writes them (the text protocol compacts each call it renders).
func BenchmarkCompact(b *testing.B) {
	src := []byte(`{ "city": "Paris", "days": [1, 2, 3], "units": "metric", "note": "a \"quoted\" word, and \u00e9" }`)
	for _, c := range []struct {
		name    string
		compact func(*bytes.Buffer, []byte) error
	}{{"jsonv", jsonv.Compact}, {"encoding-json", json.Compact}} {
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				buf.Reset()
				if err := c.compact(&buf, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
