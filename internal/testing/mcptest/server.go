// Package mcptest is an MCP server for tests, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): its Streamable HTTP handler on 127.0.0.1,
// with CORS for any page's origin (exposing Mcp-Session-Id), so that the module's MCP
// client (loop/mcp) is tested against a server written by others, in every engine. Tests
// may link net/http; the module may not, and never imports this package.
//
// Its tools, one per behaviour a scenario needs (tools/list pages two at a time):
//
//	weather {city}      text and image content; readOnlyHint, title "Weather"
//	forecast {city}     isError: true
//	slow                two notifications/progress, then text
//	hang                runs until cancelled (notifications/cancelled), logging "cancelled hang"
//	add_news            adds the tool news (list_changed), once the notification is sent
//	delete_file {path}  destructiveHint: true
//	crash               the server drops every connection mid-call
//	plain               no annotations
//
// GET /log answers what happened, as a JSON array of strings ("DELETE" when the client
// ended its MCP session, "cancelled hang"); with a token, every MCP request must carry
// Authorization: Bearer <token> (else 401).
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a running test server.
type Server struct {
	URL  string // the MCP endpoint, http://127.0.0.1:port/mcp
	Base string // http://127.0.0.1:port
	http *httptest.Server
	mcp  *mcp.Server

	mu       sync.Mutex
	log      []string
	changed  chan struct{} // closed when a tools/list_changed notification was written
	relisted chan struct{} // closed when a tools/list came after it
	closing  chan struct{} // closed when Close starts: the tools that wait let go
}

// Options configure a server.
type Options struct {
	Token    string // required as Authorization: Bearer <token> when not empty
	JSON     bool   // answer with JSON bodies instead of server-sent events
	PageSize int    // tools/list page size; 0 is 2
}

// Start starts a server; Close stops it.
func Start(o Options) *Server {
	if o.PageSize == 0 {
		o.PageSize = 2
	}
	s := &Server{changed: make(chan struct{}), relisted: make(chan struct{}), closing: make(chan struct{})}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: o.PageSize})
	s.addTools()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{JSONResponse: o.JSON})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.watch(auth(o.Token, h)))
	mux.HandleFunc("/log", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		b, _ := json.Marshal(append([]string{}, s.log...))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	s.http = httptest.NewServer(CORS(mux))
	s.Base = s.http.URL
	s.URL = s.http.URL + "/mcp"
	return s
}

// Close stops the server. It first lets go of the tools that wait (hang, crash): the SDK
// ends a session (the client's DELETE) only once its calls have returned, and a call's
// context is not always cancelled by then, so Close would wait for the DELETE for ever.
func (s *Server) Close() {
	close(s.closing)
	s.http.CloseClientConnections()
	s.http.Close()
}

// Log is what happened so far.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.log...)
}

func (s *Server) record(what string) {
	s.mu.Lock()
	s.log = append(s.log, what)
	s.mu.Unlock()
}

// CORS lets any origin call h, with the headers an MCP client sends, and shows it
// Mcp-Session-Id.
func CORS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			origin = "*"
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Vary", "Origin")
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id")
		w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func auth(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// watch logs DELETE requests and notices list changes written to the server's stream.
func (s *Server) watch(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			s.record("DELETE")
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"tools/list"`)) {
				s.mu.Lock()
				select {
				case <-s.changed:
					select {
					case <-s.relisted:
					default:
						close(s.relisted)
					}
				default:
				}
				s.mu.Unlock()
			}
		}
		h.ServeHTTP(&watcher{ResponseWriter: w, s: s}, r)
	})
}

type watcher struct {
	http.ResponseWriter
	s *Server
}

func (w *watcher) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte("notifications/tools/list_changed")) {
		if f, ok := w.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		w.s.mu.Lock()
		select {
		case <-w.s.changed:
		default:
			close(w.s.changed)
		}
		w.s.mu.Unlock()
	}
	return n, err
}

func (w *watcher) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *watcher) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type cityArgs struct {
	City string `json:"city"`
}

type pathArgs struct {
	Path string `json:"path"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func yes() *bool { b := true; return &b }

// wait returns when the call is cancelled or the server closes.
func (s *Server) wait(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.closing:
	}
}

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "weather", Title: "Weather", Description: "Weather in a city", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Sunny in " + a.City},
				&mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
			}}, nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "forecast", Description: "Forecast for a city"},
		func(ctx context.Context, req *mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, any, error) {
			r := text("no forecast for " + a.City)
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "slow", Description: "A slow job that reports progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if token := req.Params.GetProgressToken(); token != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "half"})
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 2, Total: 2, Message: "all"})
			}
			return text("slow done"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "hang", Description: "Runs until cancelled"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			s.record("started hang")
			s.wait(ctx)
			s.record("cancelled hang")
			return text("cancelled"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "add_news", Description: "Adds the news tool"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s.mcp, &mcp.Tool{Name: "news", Description: "Latest news"},
				func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
					return text("all calm"), nil, nil
				})
			// Answer once the client has listed the tools again after the notification:
			// the scenarios then know that the session has the new tool from its next
			// model step on (the notification comes on the server's own stream, in no
			// order with this answer).
			select {
			case <-s.relisted:
			case <-time.After(10 * time.Second):
			}
			return text("added"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "delete_file", Description: "Deletes a file", Annotations: &mcp.ToolAnnotations{DestructiveHint: yes()}},
		func(ctx context.Context, req *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, any, error) {
			s.record("deleted " + a.Path)
			return text("deleted " + a.Path), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "crash", Description: "Drops every connection"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			go s.http.CloseClientConnections()
			s.wait(ctx)
			return text("never"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "plain", Description: "A tool with no annotations"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text("plain"), nil, nil
		})
}
