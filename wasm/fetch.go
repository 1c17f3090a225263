package wasm

import (
	"errors"

	"langmodel/internal/clock"
	"langmodel/internal/jsonv"
	"langmodel/internal/order"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/loop/openai"
	"langmodel/wasm/internal/jsonw"
)

// pageFetch is openai.Transport over the channel: each request becomes a fetch message,
// the page runs fetch() with an AbortSignal and streams the answer back (fetch-response,
// fetch-chunk…, fetch-end), and the body the backend reads is that stream. The module
// so never links net/http (DESIGN.md §2).
//
// The request's URL and headers, which may carry the API key, go to the page inside the
// fetch message and nowhere else: errors built here never show them, and the page's own
// error messages are cleaned of the sessions' secrets (Handler.red) before they go on.
type pageFetch struct{ h *Handler }

// Do implements openai.Transport. It returns when the response's status and headers
// have arrived, or the fetch failed, or ctx ended (the page is then told, with
// fetch-abort, and aborts the request). The body stops, and tells the page, when ctx
// ends or it is closed.
func (f *pageFetch) Do(ctx loop.Context, req *openai.Request) (*openai.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := newStream()
	id, pc := f.h.openCall(TypeFetch, nil, s)
	stop := loop.AfterFunc(ctx, func() {
		f.h.abortCall(id, TypeFetchAbort)
		s.end(ctx.Err())
	})
	f.h.writeWithSecrets(&PageCall{Type: TypeFetch, ID: id, Request: fetchRequest(req, &f.h.red)})
	var a PageReturn
	select {
	case a = <-pc.done:
	case <-ctx.Done():
		stop()
		f.h.abortCall(id, TypeFetchAbort)
		return nil, ctx.Err()
	}
	if a.Type == TypeFetchEnd { // the fetch failed before any response
		stop()
		return nil, errors.New(f.h.clean(a.Error.Message))
	}
	header := make(map[string]string, len(a.Headers))
	for k, v := range a.Headers {
		header[jsonv.LowerASCIIString(k)] = v
	}
	return &openai.Response{Status: a.Status, Header: header,
		Body: &fetchBody{h: f.h, id: id, s: s, stop: stop}}, nil
}

// fetchRequest encodes the request for the page: {method, url, headers, body (null for
// none)}, header names sorted so that the message is the same byte for byte every time.
// The URL and headers carry their credentials to the server; the body (a model request,
// an MCP message) is JSON whose strings have red's secrets redacted: what a server echoed
// earlier never goes back to a model.
func fetchRequest(req *openai.Request, red *redact.Redactor) []byte {
	var w jsonw.Writer
	w.RawString(`{"method":`)
	w.String(req.Method)
	w.RawString(`,"url":`)
	w.String(req.URL)
	w.RawString(`,"headers":{`)
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		names = append(names, k)
	}
	order.Sort(names)
	for i, k := range names {
		if i > 0 {
			w.RawByte(',')
		}
		w.String(k)
		w.RawByte(':')
		w.String(req.Header[k])
	}
	w.RawString(`},"body":`)
	if req.Body == nil { // a GET or a DELETE: fetch refuses a body there, even an empty one
		w.RawString("null")
	} else {
		w.String(string(red.JSON(req.Body)))
	}
	w.RawByte('}')
	b, _ := w.BuildBytes()
	return b
}

// fetchBody is a response body: the text the page sends in fetch-chunks.
type fetchBody struct {
	h     *Handler
	id    int64
	s     *stream
	stop  func() bool // stops the ctx watcher
	queue [][]byte
	buf   []byte
	err   error
	read  int // bytes read since the last fetch-more
}

var errBodyClosed = errors.New("the response body is closed")

func (b *fetchBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if len(b.queue) > 0 {
			b.buf, b.queue = b.queue[0], b.queue[1:]
			continue
		}
		if b.err != nil {
			return 0, b.err
		}
		items, err := b.s.next()
		if err != nil {
			if pe, ok := errors.AsType[*pageError](err); ok { // the connection failed mid-body
				err = errors.New(b.h.clean(pe.message))
			}
			b.err = err
			return 0, err
		}
		b.queue = items
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	// The page reads its fetch only so far ahead of this (FetchWindow): a body the reader
	// gives up on (an event over the limit) is not read on by the page meanwhile.
	if b.read += n; b.read >= FetchWindow {
		b.read -= FetchWindow
		b.h.write(&PageCall{Type: TypeFetchMore, ID: b.id})
	}
	return n, nil
}

// defaultBodyGrace is how long a body closed before its end may take to end by itself
// before the page is told to abort its fetch.
const defaultBodyGrace = loop.Second

// bodyTail is how much text a body closed before its end may hold unread, or receive
// after, and still be left the grace to end: the rest of a stream after [DONE] (a blank
// line, a last comment). More means the reader gave up on a body that goes on (an event
// over the SSE limit, a server sending past [DONE]), and the page is told to abort at
// once: waiting out the grace would have it read on, at the network's speed, for the
// whole second.
const bodyTail = 1 << 10

// Close stops reading. A body read to its end closes without a word to the page. One the
// reader leaves before its end, as the SSE reader does at "data: [DONE]", usually ends a
// moment later (a server closes the response right after [DONE]), so the page is left to
// finish it: an abort then would fail the page's fetch (net::ERR_ABORTED) and drop a
// keep-alive connection every turn. The page is told to abort (fetch-abort) if the end
// has not come within the grace, or at once when more than bodyTail of text was left
// unread or comes after; what it sends meanwhile is dropped. An abort of the request's
// context still aborts at once (Do's watcher).
func (b *fetchBody) Close() error {
	b.stop()
	if b.err == nil { // not read to its end
		grace := b.h.bodyGrace
		if grace == 0 {
			grace = defaultBodyGrace
		}
		abort := func() { b.h.abortCall(b.id, TypeFetchAbort) } // at most once: it forgets the call
		t := clock.AfterFunc(grace, abort)                      // the page's setTimeout (internal/clock)
		unread := len(b.buf)
		for _, q := range b.queue {
			unread += len(q)
		}
		b.s.leave(errBodyClosed, unread, bodyTail, func() { t.Stop(); abort() })
	} else {
		b.s.end(errBodyClosed)
	}
	b.queue, b.buf = nil, nil
	if b.err == nil {
		b.err = errBodyClosed
	}
	return nil
}

// clean is a message the page's fetch produced (which may name the URL with its query, or
// echo a header), the sessions' secrets redacted.
func (h *Handler) clean(msg string) string {
	if msg == "" {
		msg = "the fetch failed"
	}
	return h.red.String(msg)
}
