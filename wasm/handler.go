// Package wasm is the binding between the JS face (js/language-model.js) and the engine
// (loop, session): one narrow message channel, declared in protocol.go. Handler is plain
// Go with no syscall/js, so the same code runs natively in go test, inside the real .wasm
// under the wazero host (internal/testing/jshost) and in the browser (internal/testing/browsertest); the only
// syscall/js file is wasm/cmd/langmodel/main.go, which moves bytes. No engine logic
// lives here: the binding translates messages to loop calls and errors to data.
//
// It must never import syscall/js outside cmd/, nor net/http (make check-imports).
package wasm

import (
	"sync"
	"sync/atomic"

	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/wasm/internal/jsonw"
)

// Handler owns the sessions of one page, by key. It handles the page's messages in
// order, one at a time, so that a destroy is never overtaken and prompts and appends take
// their queue turn in call order (esbuild's handleIncomingPacket); handling never blocks,
// and only waiting happens on other goroutines. Writes to the page are serialised by one
// lock, so messages never interleave.
//
// Messages are handled on the goroutine that delivers them (Receive), or, when another is
// already handling, by that one, in arrival order. There is no reader or writer goroutine:
// under GOOS=js every goroutine switch unwinds and rewinds the wasm stack, and handing each
// message to a reader and each reply to a writer made a request's round trip cost 0.77 ms
// in Chromium (wasm/README.md "Performance").
type Handler struct {
	in      *fifo[inItem]
	reading sync.Mutex // held while handling messages
	writeMu sync.Mutex // held while sending one message
	send    func([]byte)
	port    *Port // when not nil, messages are encoded into its batch instead of sent
	closed  bool  // guarded by writeMu

	mu       sync.Mutex                // guards sessions and inflight
	sessions map[int64]*entry          // written only while reading
	inflight map[int64]loop.CancelFunc // page request id → cancel, for abort

	// replyValue encodes a reply's value here (guarded by replyMu), and the reply copies
	// it into the message: a prompt's answer costs no buffer of its own.
	replyMu  sync.Mutex
	replyW   jsonw.Writer
	replyBuf []byte

	callsMu  sync.Mutex
	calls    map[int64]*pageCall // engine → page calls awaiting the page's answers
	nextCall atomic.Int64

	bodyGrace loop.Duration // how long a closed fetch body may take to end; 0: defaultBodyGrace (fetch.go)

	// mirrors are the Mirrors of this handler's sessions (worker mode has one; nil on the
	// page's own thread): each learns which sessions changed (mirrorChanged).
	mirrors   atomic.Pointer[[]*Mirror]
	mirrorsMu sync.Mutex // held while adding to mirrors

	// red holds every secret any session of the page was given (apiKey, credential
	// headers, configured URLs' user-info and query values: a superset of each
	// session's), and cleans every message that leaves the engine (write, Query, Mirror;
	// docs/design.md "Secrets"). Empty, it costs a pointer load a message.
	red redact.Redactor
}

// NewHandler returns a handler that writes every message for the page through send, one
// at a time. send is called with the write lock held, possibly from inside Receive: it
// must not block on the page (the js host queues; tests use a buffered channel).
func NewHandler(send func([]byte)) *Handler {
	return &Handler{
		in:       newFIFO[inItem](),
		send:     send,
		sessions: make(map[int64]*entry),
		inflight: make(map[int64]loop.CancelFunc),
		calls:    make(map[int64]*pageCall),
	}
}

// Close destroys every session and stops the handler; nothing is written after it.
func (h *Handler) Close() {
	h.in.close()
	h.reading.Lock()
	defer h.reading.Unlock()
	h.mu.Lock()
	for _, e := range h.sessions {
		if e.s != nil {
			e.s.Destroy()
		}
		e.release()
	}
	h.mu.Unlock()
	h.writeMu.Lock()
	h.closed = true
	h.writeMu.Unlock()
}
