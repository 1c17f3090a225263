package openai

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
)

// relayForming reads body with calls as they form and renders the forming calls beside
// the rest.
func relayForming(t *testing.T, body []byte, forming bool) []string {
	t.Helper()
	var out []string
	r := chunkReader{source: "the server", forming: forming, emit: func(d loop.Delta) error {
		switch {
		case d.Forming != nil:
			f := d.Forming
			out = append(out, "forming "+strconv.Itoa(f.Index)+" "+f.CallID+" "+f.Name+" "+f.Arguments)
		case d.Call != nil:
			out = append(out, "call "+d.Call.CallID+" "+d.Call.Name+" "+string(d.Call.Arguments))
		case d.Text != "":
			out = append(out, "text "+d.Text)
		}
		return nil
	}}
	err := r.read(context.Background(), &Response{Status: 200, Header: map[string]string{"content-type": "text/event-stream"}, Body: io.NopCloser(bytes.NewReader(body))})
	require.NoError(t, err)
	return out
}

func TestChunkReader_Forming(t *testing.T) {
	parallel, err := os.ReadFile("testdata/openai_parallel.sse")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		body    []byte
		forming bool
		want    []string
	}{
		{"interleaved calls form at their places, each as its arguments grow", parallel, true, []string{
			"forming 0 call_paris get_weather ",
			`forming 0 call_paris get_weather {"ci`,
			"forming 1 call_tokyo get_weather ",
			`forming 0 call_paris get_weather {"city": "Par`,
			`forming 1 call_tokyo get_weather {"city": "Tok`,
			`forming 0 call_paris get_weather {"city": "Paris"}`,
			`forming 1 call_tokyo get_weather {"city": "Tokyo"}`,
			`call call_paris get_weather {"city": "Paris"}`,
			`call call_tokyo get_weather {"city": "Tokyo"}`,
		}},
		{"nothing forms unless asked", parallel, false, []string{
			`call call_paris get_weather {"city": "Paris"}`,
			`call call_tokyo get_weather {"city": "Tokyo"}`,
		}},
		{"a call forms once it has a name", []byte(
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{\"a\""}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":":1}"}}]}}]}` + "\n\n" +
				"data: [DONE]\n\n"), true, []string{
			`forming 0 c1 f {"a":1}`,
			`call c1 f {"a":1}`,
		}},
		{"arguments escaped in the chunk form unescaped", []byte(
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"s\":\"\u00e9"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}}]}` + "\n\n" +
				"data: [DONE]\n\n"), true, []string{
			`forming 0 c1 f {"s":"é`,
			"text hi",
			`forming 0 c1 f {"s":"é"}`,
			`call c1 f {"s":"é"}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, relayForming(t, tc.body, tc.forming))
		})
	}
}
