package openai_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"langmodel/loop"
	"langmodel/loop/openai"
)

// httpTransport is the native tests' Transport: Go's HTTP client behind the port the
// browser fills with fetch. It lives in a test file so the module never links net/http.
type httpTransport struct{ client *http.Client }

func (t httpTransport) Do(ctx loop.Context, req *openai.Request) (*openai.Response, error) {
	hctx, ok := ctx.(context.Context)
	if !ok { // the loop's own: net/http wants a context.Context that ends with it
		var cancel context.CancelFunc
		hctx, cancel = context.WithCancel(context.Background())
		loop.AfterFunc(ctx, cancel)
	}
	hreq, err := http.NewRequestWithContext(hctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		hreq.Header.Set(k, v)
	}
	resp, err := t.client.Do(hreq)
	if err != nil {
		return nil, err
	}
	h := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		h[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return &openai.Response{Status: resp.StatusCode, Header: h, Body: resp.Body}, nil
}
