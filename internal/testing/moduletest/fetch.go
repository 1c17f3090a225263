//go:build !js

package moduletest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/dop251/goja"

	"langmodel/internal/testing/jshost"
)

// fetchJS is the JS half of the wazero host's fetch (the host has none): a fetch(url,
// {method, headers, body, signal, redirect}) whose Response has status, ok, headers (forEach,
// get), a ReadableStream body of Uint8Arrays, text() and json(). The Go half
// (installFetch) runs the request with net/http.
const fetchJS = `
globalThis.fetch = (url, init = {}) => new Promise((resolve, reject) => {
	const signal = init.signal;
	if (signal?.aborted) { reject(signal.reason); return; }
	let controller, responded = false, finished = false, id = 0;
	const body = new ReadableStream({ start(c) { controller = c; }, cancel() { finished = true; __goFetchAbort(id); } });
	const read = async () => {
		const reader = body.getReader(), dec = new TextDecoder();
		let s = "";
		for (;;) { const { done, value } = await reader.read(); if (done) return s + dec.decode(); s += dec.decode(value, { stream: true }); }
	};
	id = __goFetch(String(url), init.method ?? "GET", JSON.stringify(init.headers ?? {}), init.body ?? "", init.redirect ?? "follow", {
		response(status, headers) {
			responded = true;
			const h = JSON.parse(headers);
			resolve({ status, ok: status >= 200 && status < 300, body,
				headers: { forEach(f) { for (const [k, v] of h) f(v, k); }, get(n) { return (h.find(([k]) => k === n.toLowerCase()) ?? [])[1] ?? null; } },
				text: read, json: async () => JSON.parse(await read()) });
		},
		chunk(buf) { if (!finished) controller.enqueue(new Uint8Array(buf)); },
		end(err) {
			if (finished) return;
			finished = true;
			if (!err) controller.close();
			else if (responded) controller.error(new TypeError(err));
			else reject(new TypeError(err));
		},
	});
	signal?.addEventListener("abort", () => {
		if (finished) return;
		finished = true;
		__goFetchAbort(id);
		if (responded) controller.error(signal.reason); else reject(signal.reason);
	});
});
`

// InstallFetch gives the host a fetch made of client: each request runs on its own
// goroutine, under a Hold (the host's loop waits in real time while it is out), reads
// the body split bytes at a time and posts every piece to the loop.
func InstallFetch(h *jshost.Host, client *http.Client, split int) error {
	var mu sync.Mutex
	cancels := map[int64]context.CancelFunc{}
	var next int64
	h.Set("__goFetchAbort", func(id int64) {
		mu.Lock()
		cancel := cancels[id]
		mu.Unlock()
		if cancel != nil {
			cancel()
		}
	})
	h.Set("__goFetch", func(url, method, headersJSON, body, redirect string, cb *goja.Object) int64 {
		response, _ := goja.AssertFunction(cb.Get("response"))
		chunk, _ := goja.AssertFunction(cb.Get("chunk"))
		end, _ := goja.AssertFunction(cb.Get("end"))
		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		next++
		id := next
		cancels[id] = cancel
		mu.Unlock()
		release := h.Hold()
		finish := func(msg string) {
			h.Post(func(vm *goja.Runtime) {
				arg := goja.Undefined()
				if msg != "" {
					arg = vm.ToValue(msg)
				}
				_, _ = end(goja.Undefined(), arg)
			})
			mu.Lock()
			delete(cancels, id)
			mu.Unlock()
			cancel()
			release()
		}
		go func() {
			req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
			if err != nil {
				finish(err.Error())
				return
			}
			var headers map[string]string
			_ = json.Unmarshal([]byte(headersJSON), &headers)
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			c := client
			if redirect != "follow" { // fetch's redirect: "manual" answers the redirect itself, "error" fails
				own := *client
				own.CheckRedirect = func(*http.Request, []*http.Request) error {
					if redirect == "error" {
						return errors.New("redirect")
					}
					return http.ErrUseLastResponse
				}
				c = &own
			}
			resp, err := c.Do(req)
			if err != nil {
				finish("Failed to fetch")
				return
			}
			if redirect != "follow" && resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "" {
				resp.Body.Close()
				if redirect == "error" {
					finish("Failed to fetch") // as the Fetch standard's redirect mode "error"
					return
				}
				// "manual": the redirect itself, as Node's fetch hands it back (a browser's is
				// opaque, status 0): the face refuses it by name and status
				resp = &http.Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: http.NoBody}
			}
			defer resp.Body.Close()
			pairs := [][2]string{} // [], not null: the JS half iterates it
			for k, v := range resp.Header {
				pairs = append(pairs, [2]string{strings.ToLower(k), strings.Join(v, ", ")})
			}
			hj, _ := json.Marshal(pairs)
			h.Post(func(vm *goja.Runtime) {
				_, _ = response(goja.Undefined(), vm.ToValue(resp.StatusCode), vm.ToValue(string(hj)))
			})
			buf := make([]byte, split)
			for {
				n, err := resp.Body.Read(buf)
				if n > 0 {
					data := bytes.Clone(buf[:n])
					h.Post(func(vm *goja.Runtime) { _, _ = chunk(goja.Undefined(), vm.ToValue(vm.NewArrayBuffer(data))) })
				}
				if err == io.EOF {
					finish("")
					return
				}
				if err != nil {
					finish("network error")
					return
				}
			}
		}()
		return id
	})
	_, err := h.Eval(context.Background(), fetchJS)
	return err
}
