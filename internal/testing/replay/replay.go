// Package replay is a test helper, never linked into the module: an OpenAI-compatible
// Chat Completions server that replays recorded streams (loop/openai/testdata, and
// testdata/ here), for the binding's tests at every layer: natively (the fake page's
// fetch), in the wazero host (a fetch made of Go's net/http) and in Chromium (the page's
// real fetch).
//
// A test points the openai backend at
//
//	baseURL = <server>/r/<nonce>/<plan>
//
// and the server answers each request to <baseURL>/chat/completions from the plan,
// without any state but a counter for retries: the plan is a comma-separated list of
// steps, and a request gets the step numbered by how many assistant messages it carries
// (the first request none, the request after one tool round one, …). A step is one or
// more answers joined by "+": the first request for that step gets the first answer, a
// repeat of it (a retry) the next, and so on, the last repeating. An answer is
//
//	file.sse, file.json  that file, 200 (text/event-stream or application/json)
//	NNN                  status NNN, Retry-After: 0, {"error": {"message": "status NNN"}}
//	NNN:file             status NNN with that file as body
//	echo401              401 whose message echoes the request's Authorization header
//	hang                 no answer until the client gives up
//	stall:file           the first half of the file, then no more until the client gives up
//	big:N                a generated stream of about N KiB: text deltas, then one tool
//	                     call (get_weather) whose arguments arrive in many deltas
//
// The nonce keeps concurrent tests apart: GET <server>/r/<nonce>/stats answers
// {requests, canceled, auth: [Authorization of each request], bodies: [each request]};
// Server.Stats gives the same in Go.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"langmodel/internal/jsonv"
)

// Server replays recorded answers. The zero value writes each body at once.
type Server struct {
	// Split writes bodies in pieces of this many bytes, flushed one by one (0: whole),
	// so that a client's reads cut events, lines and UTF-8 sequences anywhere.
	Split int
	// Pause waits between pieces, so that a browser's fetch sees them as separate chunks.
	Pause time.Duration
	// CORS allows every origin, preflights included.
	CORS bool

	mu    sync.Mutex
	seen  map[string]int
	stats map[string]*Stats
}

// Stats is what a nonce's requests did.
type Stats struct {
	Requests int                `json:"requests"`
	Canceled int                `json:"canceled"`
	Auth     []string           `json:"auth"`
	Bodies   []jsonv.RawMessage `json:"bodies"`
}

// dirs are where answer files are looked up: this package's testdata, then the
// recorded streams of loop/openai.
var dirs = func() []string {
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Dir(file)
	return []string{filepath.Join(here, "testdata"), filepath.Join(here, "..", "..", "..", "loop", "openai", "testdata")}
}()

// File returns the contents of an answer file.
func File(name string) ([]byte, error) {
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.Base(name))); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("replay: no answer file %q", name)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.CORS {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Headers", "authorization, content-type, accept, x-api-key")
		h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 4)
	if len(parts) == 3 && parts[0] == "r" && parts[2] == "stats" {
		s.mu.Lock()
		st := s.nonce(parts[1])
		b, _ := json.Marshal(st)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	if len(parts) != 4 || parts[0] != "r" || parts[3] != "chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"replay: no such endpoint"}}`, http.StatusNotFound)
		return
	}
	nonce, plan := parts[1], strings.Split(parts[2], ",")
	body, _ := io.ReadAll(r.Body)
	step := assistantMessages(body)
	if step >= len(plan) {
		step = len(plan) - 1
	}
	alts := strings.Split(plan[step], "+")
	s.mu.Lock()
	st := s.nonce(nonce)
	st.Requests++
	st.Auth = append(st.Auth, r.Header.Get("Authorization"))
	if jsonv.Valid(body) {
		st.Bodies = append(st.Bodies, body)
	}
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	k := nonce + "\x00" + strconv.Itoa(step)
	n := s.seen[k]
	s.seen[k]++
	s.mu.Unlock()
	answer := alts[min(n, len(alts)-1)]
	s.answer(w, r, nonce, answer)
}

// Stats returns a copy of what the requests under nonce did.
func (s *Server) Stats(nonce string) Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := *s.nonce(nonce)
	st.Auth = append([]string(nil), st.Auth...)
	st.Bodies = append([]jsonv.RawMessage(nil), st.Bodies...)
	return st
}

func (s *Server) nonce(n string) *Stats {
	if s.stats == nil {
		s.stats = map[string]*Stats{}
	}
	st := s.stats[n]
	if st == nil {
		st = &Stats{Auth: []string{}, Bodies: []jsonv.RawMessage{}}
		s.stats[n] = st
	}
	return st
}

func (s *Server) canceled(nonce string) {
	s.mu.Lock()
	s.nonce(nonce).Canceled++
	s.mu.Unlock()
}

// assistantMessages counts the assistant messages of a Chat Completions request.
func assistantMessages(body []byte) int {
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, nonce, answer string) {
	name, arg, _ := strings.Cut(answer, ":")
	switch {
	case name == "hang":
		<-r.Context().Done()
		s.canceled(nonce)
		return
	case name == "stall":
		data, err := File(arg)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		s.write(w, r, data[:len(data)/2])
		<-r.Context().Done()
		s.canceled(nonce)
		return
	case name == "echo401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg, _ := json.Marshal("Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + " (header: " + r.Header.Get("Authorization") + ")")
		_, _ = fmt.Fprintf(w, `{"error":{"message":%s}}`, msg)
		return
	case name == "big":
		kib, _ := strconv.Atoi(arg)
		w.Header().Set("Content-Type", "text/event-stream")
		s.write(w, r, Big(kib<<10))
		return
	}
	if status, err := strconv.Atoi(name); err == nil {
		body := []byte(fmt.Sprintf(`{"error":{"message":"status %d"}}`, status))
		if arg != "" {
			if body, err = File(arg); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	data, err := File(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ct := "text/event-stream"
	if strings.HasSuffix(name, ".json") {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	s.write(w, r, data)
}

// write sends data in Split-sized pieces, flushing each.
func (s *Server) write(w http.ResponseWriter, r *http.Request, data []byte) {
	f, _ := w.(http.Flusher)
	step := s.Split
	if step <= 0 {
		step = len(data)
	}
	for len(data) > 0 && r.Context().Err() == nil {
		n := min(step, len(data))
		_, _ = w.Write(data[:n])
		data = data[n:]
		if f != nil {
			f.Flush()
		}
		if s.Pause > 0 && len(data) > 0 {
			time.Sleep(s.Pause)
		}
	}
}

// Big is a stream of about size bytes in the shape OpenAI sends: half of it text deltas
// of a few words (some of them non-ASCII), half one get_weather call whose arguments
// come in deltas of up to 7 bytes, then usage and [DONE]. It is what the throughput
// benchmarks read.
func Big(size int) []byte {
	var b bytes.Buffer
	words := []string{"Sunny ", "in ", "Paris, ", "21°C ", "— ", "light ", "wind ", "from ", "the ", "west. "}
	const pre = `data: {"id":"chatcmpl-big","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":`
	const post = "},\"finish_reason\":null}]}\n\n"
	for i := 0; b.Len() < size/2; i++ {
		w, _ := json.Marshal(words[i%len(words)] + words[(i+3)%len(words)])
		b.WriteString(pre)
		b.Write(w)
		b.WriteString(post)
	}
	const callPre = `data: {"id":"chatcmpl-big","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,`
	b.WriteString(callPre + `"id":"call_big","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}` + "\n\n")
	delta := func(piece string) {
		p, _ := json.Marshal(piece)
		b.WriteString(callPre + `"function":{"arguments":`)
		b.Write(p)
		b.WriteString(`}}]},"finish_reason":null}]}` + "\n\n")
	}
	delta(`{"city": "Paris", "notes": "`)
	for i := 0; b.Len() < size; i++ {
		delta("wind from the west, "[i%3*7 : min(i%3*7+7, 20)])
	}
	delta(`"}`)
	b.WriteString(`data: {"id":"chatcmpl-big","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-big","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1000,"total_tokens":1010}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}
