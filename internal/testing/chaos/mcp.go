package chaos

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"langmodel/internal/jsonv"
)

// MCPServer is an MCP server (Streamable HTTP) that misbehaves on demand, beside the
// misbehaving model server: it initializes and lists one tool, flaky {mode}, properly,
// and answers each tools/call as its mode says:
//
//	ok        a text result, as an SSE stream
//	drop      one progress notification, then the connection dropped
//	badjson   an event that is not JSON
//	notrpc    JSON that is not a JSON-RPC response (no result, no error)
//	wrongid   the answer to another request, then the end of the stream
//	huge      one event of 5 MB (more than the client takes)
//	stall     nothing until the client gives up (an abort)
//	http500   status 500
//	rpcerror  a JSON-RPC error whose message echoes the request's Authorization header
//	echo      a text result that echoes the Authorization header
//
// It is written by hand, without an SDK, since no SDK misbehaves. CORS lets any origin
// in. Log reports the modes called and "cancelled" for each notifications/cancelled.
type MCPServer struct {
	mu  sync.Mutex
	log []string
}

// Log is what the server saw.
func (s *MCPServer) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.log...)
}

func (s *MCPServer) record(what string) {
	s.mu.Lock()
	s.log = append(s.log, what)
	s.mu.Unlock()
}

// ServeHTTP implements http.Handler; GET <base>/log answers Log as JSON.
func (s *MCPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	switch {
	case r.Method == http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case strings.HasSuffix(r.URL.Path, "/log"):
		b, _ := json.Marshal(s.Log())
		w.Write(b)
		return
	case r.Method != http.MethodPost:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     jsonv.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params struct {
			Arguments struct {
				Mode string `json:"mode"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	answer := func(result string) {
		h.Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + `}`))
	}
	switch msg.Method {
	case "initialize":
		h.Set("Mcp-Session-Id", "chaos-session")
		answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"chaos","version":"1"}}`)
		return
	case "tools/list":
		answer(`{"tools":[{"name":"flaky","description":"A tool whose server misbehaves","inputSchema":{"type":"object","properties":{"mode":{"type":"string"}},"required":["mode"]}}]}`)
		return
	case "notifications/cancelled":
		s.record("cancelled")
		w.WriteHeader(http.StatusAccepted)
		return
	case "tools/call":
	default:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	mode := msg.Params.Arguments.Mode
	s.record(mode)
	auth := r.Header.Get("Authorization")
	if mode == "http500" {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h.Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	event := func(data string) {
		w.Write([]byte("data: " + data + "\n\n"))
		f.Flush()
	}
	text := func(t string) string {
		b, _ := json.Marshal(t)
		return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"text","text":` + string(b) + `}]}}`
	}
	switch mode {
	case "ok":
		event(text("fine"))
	case "drop":
		event(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":0,"progress":1}}`)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	case "badjson":
		event(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[`)
	case "notrpc":
		event(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `}`)
	case "wrongid":
		event(`{"jsonrpc":"2.0","id":987654,"result":{"content":[]}}`)
	case "huge":
		event(text(strings.Repeat("x", 5<<20)))
	case "stall":
		<-r.Context().Done()
	case "rpcerror":
		b, _ := json.Marshal("denied for " + auth)
		event(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32000,"message":` + string(b) + `}}`)
	case "echo":
		event(text("you sent " + auth))
	}
}
