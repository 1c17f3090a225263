package textproto

import (
	"strings"
	"testing"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

var benchParas = []string{
	"The weather in Paris is mild today, with a light breeze from the west and temperatures around 21°C. ",
	"You can use `get_weather` with a city name; for example `Paris` or `東京`. Values < 0 mean frost & ice. ",
	"Here is a snippet:\n```python\nfor city in cities:\n    print(city, weather[city])\n```\n",
	"The response looked like this:\n```json\n{\"city\": \"Paris\", \"temp\": 21, \"sky\": \"clear\"}\n```\n",
	"Some <b>bold</b> text and a list:\n- one\n- two\n- three\n\n",
}

const benchCall = "Let me check the time as well.\n```tool_call\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Europe/Paris\"}}\n```\n"

// benchStream is a 64 KB reply: prose with inline code, markup, code blocks and json
// fences that are no calls, with a call block after every callEvery paragraphs.
func benchStream(callEvery int) string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(benchParas[i%len(benchParas)])
		if i%callEvery == callEvery-1 {
			b.WriteString(benchCall)
		}
	}
	return b.String()[:64<<10]
}

func benchParser(b *testing.B, s string) {
	var chunks []string
	for i := 0; i < len(s); i += 16 {
		chunks = append(chunks, s[i:min(i+16, len(s))])
	}
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	var p Parser
	for b.Loop() {
		calls := 0
		for _, c := range chunks {
			for _, pc := range p.Feed(c) {
				if pc.Block != nil {
					calls += len(pc.Block.Calls)
				}
			}
		}
		p.Close()
		if calls == 0 {
			b.Fatal("no calls")
		}
	}
}

// BenchmarkParser measures the streaming parser on a realistic 64 KB reply (text, code
// blocks, json fences, four calls) fed in 16-byte chunks, as a server streams it.
func BenchmarkParser(b *testing.B) { benchParser(b, benchStream(160)) }

// BenchmarkParser_ManyCalls is the same with a call every five paragraphs (about 120).
func BenchmarkParser_ManyCalls(b *testing.B) { benchParser(b, benchStream(5)) }

// benchRead measures Read over a 64 KB reply of prose streamed in 16-byte chunks, as a
// native backend's content: with tools offered the content is read for calls; without,
// it passes through.
func benchRead(b *testing.B, tools bool) {
	s := strings.ReplaceAll(benchStream(1<<30), "```json", "```js")
	var chunks []string
	for i := 0; i < len(s); i += 16 {
		chunks = append(chunks, s[i:min(i+16, len(s))])
	}
	inner := modelFunc(func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
		for _, c := range chunks {
			if err := emit(loop.Delta{Text: c}); err != nil {
				return err
			}
		}
		return nil
	})
	req := &loop.Request{}
	if tools {
		req.Tools = []session.Tool{{Name: "get_time", InputSchema: jsonv.RawMessage(`{"type":"object"}`)}}
	}
	m := Read(inner)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := m.Step(loop.Background(), req, func(d loop.Delta) error { n += len(d.Text); return nil }); err != nil || n != len(s) {
			b.Fatal(err, n)
		}
	}
}

type modelFunc func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error

func (f modelFunc) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	return f(ctx, req, emit)
}

// BenchmarkRead_Prose: content with no call, read because the step offers tools.
func BenchmarkRead_Prose(b *testing.B) { benchRead(b, true) }

// BenchmarkRead_NoTools: the same content on a step without tools: passed straight on.
func BenchmarkRead_NoTools(b *testing.B) { benchRead(b, false) }
