package openai_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"langmodel/loop/openai"
)

// httpTransport is the native tests' Transport: Go's HTTP client behind the port the
// browser fills with fetch. It lives in a test file so the module never links net/http.
type httpTransport struct{ client *http.Client }

func (t httpTransport) Do(ctx context.Context, req *openai.Request) (*openai.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
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
