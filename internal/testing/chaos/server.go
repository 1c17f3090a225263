// Package chaos is the chaos suite's test layer (docs/testing.md), never linked into the module:
// an OpenAI-compatible Chat Completions server on loopback that misbehaves on a schedule
// (this file), and the page half (chaos.js) that drives the real js/ face through random
// steps and checks DESIGN.md's invariants after each one. internal/integration_test/wazero and
// internal/integration_test/browser play it in the wazero host and in headless Chromium.
//
// The schedule travels in the conversation itself, so that the server keeps no state but
// a retry counter: the last user message of a request that has one holds
//
//	chaos[step0|step1|…]
//
// and a request gets the step numbered by the assistant messages after that user message
// (the first request of a prompt step 0, the one after a tool round step 1, …; a repair
// round of the text protocol the step it repairs; the last step repeats). A step is one or more answers joined by "+": the first request with a
// given body gets the first, a retry of the same body the next, and so on, the last
// repeating. Answers:
//
//	text        a text answer streamed one word per delta, as llama.cpp's server does
//	call:NAME   a call of tool NAME, its arguments streamed one byte per delta (escapes
//	            cut anywhere; a non-ASCII character whole, as JSON needs); to a request
//	            without tools (the text protocol), a call block in the text instead
//	call2:NAME  two parallel calls of NAME, their deltas interleaved
//	dup2:NAME   the same, both calls with one id (as some servers send)
//	trunc       half a text stream, then the connection dropped
//	stall       half a text stream, then nothing until the client gives up
//	badjson     a valid first chunk, then a chunk that is not JSON
//	html        200 with an HTML error page, as a proxy in front of a server answers
//	empty       200 text/event-stream with no event at all
//	NNN         status NNN, no Retry-After, OpenAI's error body
//	NNNra       the same with Retry-After: 0
//	401         401 whose message echoes the request's Authorization header (key included)
//	huge        a text stream of 20 MB (stops when the client gives up)
//	huge500     a 500 whose body is 20 MB, the key echoed at its end
//
// Usage: under <server>/usage/v1 every stream ends with llama.cpp's usage-only chunk
// ("choices": []), under <server>/plain/v1 none does.
//
// The server records what every request carried: Requests reports any whose body holds
// the key or whose Authorization is not "Bearer <key>". GET <base>/chaos/usage?text=T
// answers {"total": N}, the usage (prompt + completion tokens) of the last whole stream
// sent, with usage, to a request whose plan stands in the line T: after an answered
// prompt, the page's contextUsage must be exactly that.
package chaos

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"langmodel/internal/jsonv"
)

// HugeSize is the size of the "huge" answers.
const HugeSize = 20 << 20

// Server is the misbehaving server, for pages on its own origin. Key is the API key the
// page uses.
type Server struct {
	Key string

	mu       sync.Mutex
	seen     map[string]int
	totals   map[string]int // plan's line → usage of the last whole stream
	prompts  map[string]int // plan's line → prompt tokens of its last request but repairs
	requests int
	faults   []string
}

// Requests returns how many completion requests arrived, and what was wrong with them:
// a key in a body, an Authorization header other than the key's, a path off the base URL.
func (s *Server) Requests() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, append([]string(nil), s.faults...)
}

var specRE = regexp.MustCompile(`chaos\[([^\]]*)\]`)

// request is the part of a Chat Completions request the server reads.
type request struct {
	Tools    []jsonv.RawMessage `json:"tools"`
	Messages []struct {
		Role    string           `json:"role"`
		Content jsonv.RawMessage `json:"content"`
	} `json:"messages"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/chaos/usage") {
		s.mu.Lock()
		total, ok := s.totals[r.URL.Query().Get("text")]
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			_, _ = io.WriteString(w, `{"total":null}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"total":%d}`, total)
		return
	}
	body, _ := io.ReadAll(r.Body)
	usage := strings.HasPrefix(r.URL.Path, "/usage/v1/")
	var faults []string
	if !usage && !strings.HasPrefix(r.URL.Path, "/plain/v1/") || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		faults = append(faults, "request to "+r.URL.Path)
	}
	if s.Key != "" && bytes.Contains(body, []byte(s.Key)) {
		faults = append(faults, "the key in a request body")
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+s.Key {
		faults = append(faults, fmt.Sprintf("Authorization %q", got))
	}
	sum := sha256.Sum256(body)
	s.mu.Lock()
	s.requests++
	s.faults = append(s.faults, faults...)
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	attempt := s.seen[string(sum[:])]
	s.seen[string(sum[:])]++
	s.mu.Unlock()

	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		writeStatus(w, http.StatusBadRequest, "not JSON: "+err.Error(), false)
		return
	}
	answer := "text"
	plan, step, userText := schedule(req)
	if len(plan) > 0 {
		alts := strings.Split(plan[min(step, len(plan)-1)], "+")
		answer = alts[min(attempt, len(alts)-1)]
	}
	st := stream{id: "chatcmpl-" + hex.EncodeToString(sum[:16]), usage: usage, tokens: len(body) / 4, native: len(req.Tools) > 0}
	// The text protocol's repair round (loop/textproto): the loop calibrates on the first
	// request's input and the repair's output, since the history keeps neither the broken
	// reply nor the repair message.
	repair := isRepair(req)
	s.mu.Lock()
	if s.prompts == nil {
		s.totals, s.prompts = map[string]int{}, map[string]int{}
	}
	if !repair {
		s.prompts[userText] = st.tokens
	}
	first := s.prompts[userText]
	s.mu.Unlock()
	st.record = func(total int) {
		if repair {
			total += first - st.tokens
		}
		s.mu.Lock()
		s.totals[userText] = total
		s.mu.Unlock()
	}
	s.answer(w, r, answer, st)
}

// isRepair tells a repair round of the text protocol by its last message, which asks for
// the calls again "in its own block exactly like this".
func isRepair(req request) bool {
	if len(req.Messages) == 0 {
		return false
	}
	m := req.Messages[len(req.Messages)-1]
	return m.Role == "user" && bytes.Contains(m.Content, []byte("in its own block exactly like this"))
}

// schedule finds the plan in the last user message (text) and the step a request is at.
// A repair round of the text protocol is numbered as the step it repairs: its broken
// reply is no step of the loop (the history keeps neither it nor the repair message, so
// the loop's next request is numbered as if there had been no repair), and the plan
// says what the model answers at each step of the loop, which is what the page's oracle
// counts calls by (seed 3795455276 found a repair that did otherwise). The chaos suite sends no assistant prefix, which a repair
// would continue rather than follow.
func schedule(req request) (plan []string, step int, text string) {
	if isRepair(req) {
		step = -1 // the broken reply, counted below
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "assistant" {
			step++
			continue
		}
		if m.Role != "user" {
			continue
		}
		text = ""
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		if sm := specRE.FindStringSubmatch(text); sm != nil {
			// The line of the plan is the page's prompt; the text protocol may have
			// joined tool results to it in one user message.
			for line := range strings.SplitSeq(text, "\n") {
				if strings.Contains(line, sm[0]) {
					text = line
					break
				}
			}
			return strings.Split(sm[1], "|"), step, text
		}
		// A user message without a plan: a tool result in the text protocol, or a note;
		// the plan is further back.
	}
	return nil, 0, ""
}

// answer writes one answer.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, answer string, st stream) {
	name, arg, _ := strings.Cut(answer, ":")
	switch name {
	case "text":
		data, total := st.text()
		st.whole(total)
		st.send(w, data)
	case "call", "call2", "dup2":
		n := 1
		if name != "call" {
			n = 2
		}
		data, total := st.calls(arg, n, name == "dup2")
		st.whole(total)
		st.send(w, data)
	case "trunc":
		full, _ := st.text()
		st.send(w, full[:len(full)/2])
		panic(http.ErrAbortHandler) // the connection drops mid-stream
	case "stall":
		full, _ := st.text()
		st.send(w, full[:len(full)/2])
		<-r.Context().Done()
	case "badjson":
		st.send(w, st.chunk(`{"role":"assistant","content":"Hel"}`, "null")+"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"\n\n")
	case "html":
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>\n")
	case "empty":
		w.Header().Set("Content-Type", "text/event-stream")
	case "huge":
		w.Header().Set("Content-Type", "text/event-stream")
		piece := []byte(st.chunk(`{"content":"`+strings.Repeat("lorem ipsum ", 80)+`"}`, "null"))
		for n := 0; n < HugeSize; n += len(piece) {
			if _, err := w.Write(piece); err != nil {
				return
			}
		}
		end, _ := st.end("stop", 1)
		st.send(w, end)
	case "huge500":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"message":"`)
		line := []byte(strings.Repeat("internal error ", 1000))
		for n := 0; n < HugeSize; n += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, ` `+r.Header.Get("Authorization")+`"}}`)
	case "401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg, _ := json.Marshal("Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + ". You can find your API key at https://platform.openai.com/account/api-keys.")
		_, _ = fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, msg)
	default:
		code, ra := strings.CutSuffix(name, "ra")
		status, err := strconv.Atoi(code)
		if err != nil || status < 400 || status > 599 {
			writeStatus(w, http.StatusBadRequest, "chaos: unknown answer "+strconv.Quote(answer), false)
			return
		}
		writeStatus(w, status, http.StatusText(status), ra)
	}
}

func writeStatus(w http.ResponseWriter, status int, msg string, retryAfter bool) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter {
		w.Header().Set("Retry-After", "0")
	}
	w.WriteHeader(status)
	b, _ := json.Marshal(msg)
	_, _ = fmt.Fprintf(w, `{"error":{"message":%s,"type":"server_error","code":%d}}`, b, status)
}

// stream writes chunks as llama.cpp's server (b11669) does: every chunk carries id,
// object, created, model (the model's file path) and system_fingerprint; the first delta
// is the role with content null; usage and timings come in a last chunk of their own with
// "choices": []; then data: [DONE].
type stream struct {
	id     string
	usage  bool
	tokens int  // prompt tokens reported with usage
	native bool // the request declares tools: calls as tool_calls deltas, else as text
	record func(total int)
}

// whole records, before a whole stream goes out, the usage it reports (if it does): the
// page compares it with contextUsage once the prompt is answered, when the stream has
// been read to its end.
func (st stream) whole(total int) {
	if st.usage {
		st.record(total)
	}
}

func (st stream) chunk(delta, finish string) string {
	return `data: {"choices":[{"finish_reason":` + finish + `,"index":0,"delta":` + delta + `}],"created":1764057600,"id":"` + st.id +
		`","model":"/models/tiny-tools.gguf","system_fingerprint":"b11669-6e1a2e3","object":"chat.completion.chunk"}` + "\n\n"
}

// end closes a stream of c deltas; total is the usage it reports (when it does).
func (st stream) end(finish string, c int) (out string, total int) {
	out = st.chunk(`{}`, `"`+finish+`"`)
	if st.usage {
		out += fmt.Sprintf(`data: {"choices":[],"created":1764057600,"id":"%s","model":"/models/tiny-tools.gguf","system_fingerprint":"b11669-6e1a2e3","object":"chat.completion.chunk","usage":{"completion_tokens":%d,"prompt_tokens":%d,"total_tokens":%d},"timings":{"prompt_n":%d,"prompt_ms":12.5,"predicted_n":%d,"predicted_ms":40.1}}`+"\n\n",
			st.id, c, st.tokens, c+st.tokens, st.tokens, c)
	}
	return out + "data: [DONE]\n\n", c + st.tokens
}

var words = strings.Fields("Here is what I found : the weather is mild , 21 °C , and the café opens at nine — «bon appétit» 😀 .")

func (st stream) text() (string, int) {
	var b strings.Builder
	b.WriteString(st.chunk(`{"role":"assistant","content":null}`, "null"))
	for i, w := range words {
		if i > 0 {
			w = " " + w
		}
		j, _ := json.Marshal(w)
		b.WriteString(st.chunk(`{"content":`+string(j)+`}`, "null"))
	}
	end, total := st.end("stop", len(words))
	return b.String() + end, total
}

// arguments are a call's arguments as the model writes them: escapes, a non-ASCII
// character, a quote.
const arguments = `{"q":"caf\u00e9 \"Ñ\" 😀 \\ \/"}`

// calls streams n calls of name, with ids of 32 characters (one id for all if dup). To
// a request without tools (the text protocol) the calls are call blocks in the text,
// one character a delta.
func (st stream) calls(name string, n int, dup bool) (string, int) {
	var b strings.Builder
	if !st.native {
		b.WriteString(st.chunk(`{"role":"assistant","content":null}`, "null"))
		text := "Let me check.\n"
		for range n {
			text += "```tool_call\n{\"name\": " + strconv.Quote(name) + ", \"arguments\": " + arguments + "}\n```\n"
		}
		for _, piece := range splitBytes(text) {
			j, _ := json.Marshal(piece)
			b.WriteString(st.chunk(`{"content":`+string(j)+`}`, "null"))
		}
		end, total := st.end("stop", len(splitBytes(text)))
		return b.String() + end, total
	}
	b.WriteString(st.chunk(`{"role":"assistant","content":null}`, "null"))
	nameJSON, _ := json.Marshal(name)
	for i := range n {
		id := st.id[9:9+31] + strconv.Itoa(i)
		if dup {
			id = st.id[9 : 9+32]
		}
		b.WriteString(st.chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"%s","type":"function","function":{"name":%s,"arguments":""}}]}`, i, id, nameJSON), "null"))
	}
	deltas := 0
	for _, piece := range splitBytes(arguments) {
		for i := range n {
			j, _ := json.Marshal(piece)
			b.WriteString(st.chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, j), "null"))
			deltas++
		}
	}
	end, total := st.end("tool_calls", deltas)
	return b.String() + end, total
}

// splitBytes cuts s before every byte, except inside a multi-byte UTF-8 character.
func splitBytes(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// send writes data, flushed.
func (st stream) send(w http.ResponseWriter, data string) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	if _, err := io.WriteString(w, data); err == nil {
		_ = http.NewResponseController(w).Flush()
	}
}
