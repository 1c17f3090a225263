package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
)

// relay runs readStream over body and renders what it emitted, or the error.
func relay(body io.Reader, contentType string) []string {
	return relayReader(readStream, body, contentType)
}

// relayReader runs read over body and renders what it emitted, or the error.
func relayReader(read func(loop.Context, *Response, func(loop.Delta) error) error, body io.Reader, contentType string) []string {
	var out []string
	err := read(context.Background(), &Response{Status: 200, Header: map[string]string{"content-type": contentType}, Body: io.NopCloser(body)},
		func(d loop.Delta) error {
			switch {
			case d.Call != nil:
				out = append(out, "call "+d.Call.CallID+" "+d.Call.Name+" "+string(d.Call.Arguments))
			case d.Usage != nil:
				out = append(out, fmt.Sprint("usage ", *d.Usage))
			default:
				out = append(out, "text "+d.Text)
			}
			return nil
		})
	if err != nil {
		out = append(out, "error "+err.Error())
	}
	return out
}

// FuzzReadStream: any body either relays or fails with an error, never panics, and gives
// the same result whether the transport delivers it whole or one byte at a time.
func FuzzReadStream(f *testing.F) {
	for _, name := range []string{"openai_parallel.sse", "ollama.sse", "llamacpp.sse", "llamacpp_call.sse", "llamacpp_text.sse", "vllm.sse", "invalid_chunk.sse", "dropped.sse"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		whole := relay(bytes.NewReader(body), "text/event-stream")
		bytewise := relay(iotest.OneByteReader(bytes.NewReader(body)), "text/event-stream")
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("split delivery changed the result:\n%q\n%q", whole, bytewise)
		}
	})
}

// syntheticStream is a realistic stream: n text deltas and a call with argument deltas.
func syntheticStream(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d \"},\"finish_reason\":null}]}\n\n", i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":\"c%d\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"q\\\": \\\"part %d\\\"}\"}}]}}]}\n\n", i/10, i, i)
		}
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkReadStream measures SSE parsing with delta assembly, in MB/s of stream.
func BenchmarkReadStream(b *testing.B) {
	body := syntheticStream(400)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		err := readStream(context.Background(), &Response{Status: 200, Header: map[string]string{}, Body: io.NopCloser(bytes.NewReader(body))},
			func(loop.Delta) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadStream_UsageOnlyChunk: usage arrives in a last chunk of its own with "choices":
// [] (OpenAI with stream_options.include_usage, vLLM, Ollama, llama.cpp, which adds its
// "timings" there), after the chunk with finish_reason; it is read, whatever else the
// chunk carries.
func TestReadStream_UsageOnlyChunk(t *testing.T) {
	const text = `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hi"}}],"object":"chat.completion.chunk"}` + "\n\n" +
		`data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"object":"chat.completion.chunk"}` + "\n\n"
	for _, tc := range []struct {
		name, last string
		want       []string
	}{
		{"llama.cpp: usage and timings, model a file path",
			`{"choices":[],"created":1764057600,"id":"chatcmpl-Zr5Yx0Nd7LqK2cWm9TbH4sFj1VpE8gAu","model":"/models/tiny-tools.gguf","system_fingerprint":"b11669-6e1a2e3","object":"chat.completion.chunk","usage":{"completion_tokens":2,"prompt_tokens":9,"total_tokens":11},"timings":{"cache_n":0,"prompt_n":9,"prompt_ms":4.1,"predicted_n":2,"predicted_ms":7.5}}`,
			[]string{"text Hi", "usage {9 2 0 false}"}},
		{"OpenAI: usage beside an empty choices",
			`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`,
			[]string{"text Hi", "usage {9 2 0 false}"}},
		{"OpenAI: the prompt tokens it had cached",
			`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":2006,"completion_tokens":2,"total_tokens":2008,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
			[]string{"text Hi", "usage {2006 2 1920 true}"}},
		{"an empty choices without usage is nothing",
			`{"choices":[],"object":"chat.completion.chunk"}`,
			[]string{"text Hi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, relay(strings.NewReader(text+"data: "+tc.last+"\n\ndata: [DONE]\n\n"), "text/event-stream"))
		})
	}
}
