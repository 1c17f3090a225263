//go:build !js

package wasm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A secret a hostile server splits over two reasoning or toolcalldelta events is caught
// (docs/reasoning.md, "A secret split across two events"): each event shows only what cannot begin a secret still being
// written (loop.Options.Release), and the tail follows when the block or the call ends.

// reasoningDelta is an SSE chunk of reasoning_content.
func reasoningDelta(text string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": nil, "reasoning_content": text}}}})
	return string(b)
}

// argsDelta is an SSE chunk of a tool call's argument text (its id and name with the first).
func argsDelta(first bool, args string) string {
	fn := map[string]any{"arguments": args}
	c := map[string]any{"index": 0, "function": fn}
	if first {
		c["id"], c["type"], fn["name"] = "c1", "function", "weather"
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{c}}}}})
	return string(b)
}

func TestRedact_SplitAcrossEvents(t *testing.T) {
	const (
		key  = "sk-proj-0123456789abcdefXYZ"
		xkey = "x/api key+1a2b3c4d" // percent-encodes to something else
	)
	forms := []struct {
		name, form string
	}{
		{"plain", key},
		{"base64", base64.StdEncoding.EncodeToString([]byte(key))},
		{"base64url unpadded", base64.RawURLEncoding.EncodeToString([]byte(key))},
		{"percent-encoded", url.QueryEscape(xkey)},
		{"the Authorization header whole", "Bearer " + key},
	}
	weather := `{"name":"weather","description":"Weather","inputSchema":{"type":"object"},"hasExecute":true,"execute":1}`
	for _, ev := range []string{"reasoning", "toolcalldelta"} {
		for _, f := range forms {
			for cut := 1; cut < len(f.form); cut++ {
				t.Run(fmt.Sprintf("%s/%s/split at %d", ev, f.name, cut), func(t *testing.T) {
					a, b := "the key is "+f.form[:cut], f.form[cut:]+" ok"
					if ev == "toolcalldelta" {
						a, b = `{"city":"`+f.form[:cut], f.form[cut:]+`"}`
					}
					srv := &openaiServer{answer: func(n int, w http.ResponseWriter) {
						switch {
						case n > 0:
							sse(w, delta("done"), `[DONE]`)
						case ev == "reasoning":
							sse(w, reasoningDelta(a), reasoningDelta(b), delta("Hi"), `[DONE]`)
						default:
							sse(w, argsDelta(true, a), argsDelta(false, b),
								`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`)
						}
					}}
					ts := httptest.NewServer(srv)
					t.Cleanup(ts.Close)
					p := newPage(t)
					p.fetch = httpFetch(ts.Client(), 0)
					p.tools[1] = func(*fakePage, msg) (any, string) { return "sunny", "" }
					backend := fmt.Sprintf(`{"kind":"openai","baseURL":%q,"model":"m","apiKey":%q,"headers":{"X-API-Key":%q}}`, ts.URL+"/v1", key, xkey)
					p.ok("create", `"session":1,"options":{"keepReasoning":true,"tools":[`+weather+`],"backend":{"kind":"record","backend":`+backend+`}}`)
					p.send(`{"type":"listen","session":1,"event":"` + ev + `"}`)
					p.call("prompt", `"session":1,"input":"hi","stream":true`)
					p.drain()
					requireNoSecret(t, p, key, xkey)
					events := p.logged(ev)
					require.NotEmpty(t, events)
					if ev == "reasoning" {
						var text strings.Builder
						for _, e := range events {
							text.WriteString(e["detail"].(map[string]any)["text"].(string))
						}
						require.Equal(t, "the key is [redacted] ok", text.String())
						return
					}
					want := `{"city":"[redacted]"}`
					for _, e := range events { // each shows a beginning of the whole, redacted
						shown := e["detail"].(map[string]any)["argumentsText"].(string)
						require.True(t, strings.HasPrefix(want, shown), "shown %q", shown)
					}
					require.Equal(t, want, events[len(events)-1]["detail"].(map[string]any)["argumentsText"])
				})
			}
		}
	}
}
