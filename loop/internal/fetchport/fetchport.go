// Package fetchport is the HTTP port the engine's network clients share: the openai
// backend and the MCP client (loop/mcp) build requests and read responses, and one
// Transport sends them. In the browser that is the page's fetch over the module's
// channel (wasm/fetch.go), so the module never links net/http (DESIGN.md §2); native
// tests plug in a Go HTTP client. Each client names these types as its own (aliases).
package fetchport

import (
	"io"

	"langmodel/loop"
)

// Transport sends one HTTP request and returns the response with its body unread. It must
// stop, and close the body, when ctx ends.
type Transport interface {
	Do(ctx loop.Context, req *Request) (*Response, error)
}

// Request is an HTTP request as the transport sends it.
type Request struct {
	Method string
	URL    string
	Header map[string]string
	Body   []byte
}

// Response is an HTTP response; Header keys are lower case.
type Response struct {
	Status int
	Header map[string]string
	Body   io.ReadCloser
}

// ReadAll is io.ReadAll as Go 1.25 wrote it: Go 1.26's, which reads into chunks and joins
// them once, is 3 KB of the module's code, and the bodies the clients read whole are
// bounded (io.LimitReader).
func ReadAll(r io.Reader) ([]byte, error) {
	b := make([]byte, 0, 512)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append grow it
		}
	}
}
