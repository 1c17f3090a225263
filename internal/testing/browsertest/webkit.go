package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"langmodel/internal/jsonv"
)

// webkit drives WebKitGTK's MiniBrowser through WebKitWebDriver, W3C WebDriver
// classic over HTTP (https://w3c.github.io/webdriver/). MiniBrowser needs an X
// display: one Xvfb serves every driver of the browser. A driver holds one
// session at a time and a session's commands go to its current window, so each
// open page has a session, and a MiniBrowser process, of its own. Starting one
// takes 0.5–1.5 s, so a closed page's session is cleared (cookies, storage,
// caches, service workers of its origin), sent to about:blank and kept for the
// next page.
type webkit struct {
	group   *procGroup // Xvfb, the drivers and every MiniBrowser and web process
	xvfb    *exec.Cmd
	display string
	binary  string

	mu     sync.Mutex
	idle   []*webkitTab // sessions on about:blank
	all    []*wkDriver
	closed bool
}

// wkDriver is one WebKitWebDriver process.
type wkDriver struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:port
}

// webKitDriverPath is $WEBKITWEBDRIVER, or Debian's /usr/bin/WebKitWebDriver.
func webKitDriverPath() string {
	if p := os.Getenv("WEBKITWEBDRIVER"); p != "" {
		return p
	}
	return "/usr/bin/WebKitWebDriver"
}

// miniBrowserPath is $MINIBROWSER, or where Debian's libwebkit2gtk-4.1-0 puts it.
func miniBrowserPath() string {
	if p := os.Getenv("MINIBROWSER"); p != "" {
		return p
	}
	return "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
}

func startWebKit(ctx context.Context) (driver, string, error) {
	for _, p := range []string{webKitDriverPath(), miniBrowserPath(), "Xvfb"} {
		if _, err := exec.LookPath(p); err != nil {
			return nil, "", fmt.Errorf("browsertest: no WebKit: %w; run .ci/install-browsers.sh (or set WEBKITWEBDRIVER, MINIBROWSER)", err)
		}
	}
	group, err := newProcGroup()
	if err != nil {
		return nil, "", err
	}
	w := &webkit{group: group, binary: miniBrowserPath()}
	// Xvfb picks a free display and writes its number to the file descriptor
	// -displayfd names (3: the first of ExtraFiles).
	r, wr, err := os.Pipe()
	if err != nil {
		group.kill()
		return nil, "", err
	}
	w.xvfb = exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	w.xvfb.ExtraFiles = []*os.File{wr}
	err = group.start(w.xvfb)
	wr.Close()
	if err != nil {
		r.Close()
		group.kill()
		return nil, "", fmt.Errorf("browsertest: starting Xvfb: %w", err)
	}
	display := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		display <- strings.TrimSpace(line)
	}()
	select {
	case d := <-display:
		if d == "" {
			w.close()
			return nil, "", errors.New("browsertest: Xvfb gave no display number")
		}
		w.display = ":" + d
	case <-ctx.Done():
		w.close()
		return nil, "", fmt.Errorf("browsertest: starting Xvfb: %w", ctx.Err())
	}
	// The first session checks that everything works and tells the version; it
	// stays for the first page.
	d, err := w.driver(ctx)
	if err != nil {
		w.close()
		return nil, "", err
	}
	id, caps, err := d.newSession(ctx, w.binary)
	if err != nil {
		w.close()
		return nil, "", err
	}
	w.release(&webkitTab{w: w, d: d, id: id})
	return w, "WebKitGTK/" + caps.BrowserVersion, nil
}

// session returns an idle session, or starts a driver and a session.
func (w *webkit) session(ctx context.Context) (*webkitTab, error) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		t := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		return t, nil
	}
	w.mu.Unlock()
	d, err := w.driver(ctx)
	if err != nil {
		return nil, err
	}
	id, _, err := d.newSession(ctx, w.binary)
	if err != nil {
		w.discard(d)
		return nil, err
	}
	return &webkitTab{w: w, d: d, id: id}, nil
}

// driver starts a driver.
func (w *webkit) driver(ctx context.Context) (*wkDriver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(webKitDriverPath(), "--port="+strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "DISPLAY="+w.display)
	if err := w.group.start(cmd); err != nil {
		return nil, fmt.Errorf("browsertest: starting WebKitWebDriver: %w", err)
	}
	d := &wkDriver{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port)}
	w.mu.Lock()
	w.all = append(w.all, d)
	w.mu.Unlock()
	for {
		var ready struct {
			Ready bool `json:"ready"`
		}
		if err := d.do(ctx, "GET", "/status", nil, &ready); err == nil {
			return d, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("browsertest: WebKitWebDriver did not answer on port %d: %w", port, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// release gives a session on about:blank back to the pool.
func (w *webkit) release(t *webkitTab) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		t.d.kill()
		return
	}
	w.idle = append(w.idle, t)
}

// discard stops a driver in an unknown state.
func (w *webkit) discard(d *wkDriver) {
	w.mu.Lock()
	w.all = slices.DeleteFunc(w.all, func(x *wkDriver) bool { return x == d })
	w.mu.Unlock()
	d.kill()
}

func (w *webkit) close() {
	w.mu.Lock()
	w.closed = true
	all := w.all
	w.all, w.idle = nil, nil
	w.mu.Unlock()
	for _, d := range all {
		d.kill()
	}
	w.group.kill()
	if w.xvfb != nil && w.xvfb.Process != nil {
		w.xvfb.Wait()
	}
}

func (d *wkDriver) kill() {
	// The driver ends the MiniBrowser of an open session when it gets a SIGTERM.
	d.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

// wdError is a WebDriver error response.
type wdError struct {
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *wdError) Error() string { return "webkit: " + e.Code + ": " + e.Message }

// do sends one WebDriver command and decodes the reply's value into out.
func (d *wkDriver) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Value jsonv.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("webkit: %s %s: HTTP %d: %w", method, path, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK {
		e := &wdError{}
		json.Unmarshal(r.Value, e)
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Value, out)
}

type wkCapabilities struct {
	BrowserVersion string `json:"browserVersion"`
}

// newSession starts a MiniBrowser in automation mode (without --automation the
// driver waits for it forever) and returns the session's id.
func (d *wkDriver) newSession(ctx context.Context, binary string) (string, wkCapabilities, error) {
	var s struct {
		SessionID    string         `json:"sessionId"`
		Capabilities wkCapabilities `json:"capabilities"`
	}
	err := d.do(ctx, "POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"webkitgtk:browserOptions": map[string]any{"binary": binary, "args": []string{"--automation"}},
		// Eval's own deadline ends a script; the driver's must not come first.
		"timeouts": map[string]any{"script": 10 * time.Minute / time.Millisecond, "pageLoad": DefaultTimeout / time.Millisecond},
	}}}, &s)
	if err != nil {
		return "", s.Capabilities, fmt.Errorf("browsertest: starting WebKit's MiniBrowser: %w", err)
	}
	return s.SessionID, s.Capabilities, nil
}

// wkConsoleHook records console calls, uncaught exceptions and unhandled
// rejections in the page, in the lines Chromium's driver makes, for
// wkConsoleDrain to collect. WebDriver classic has no console events and no
// script to run before a page's own, so Open runs it once the page has loaded.
const wkConsoleHook = `if (!Object.prototype.hasOwnProperty.call(globalThis, "__browsertest")) {
	const buf = [];
	const fmt = (v, nested) => {
		if (typeof v === "string") return nested ? JSON.stringify(v) : v;
		if (v === null || typeof v !== "object") return typeof v === "bigint" ? v + "n" : String(v);
		if (v instanceof Error) return String(v);
		if (nested) return Array.isArray(v) ? "Array(" + v.length + ")" : "Object";
		if (Array.isArray(v)) return "[" + v.map((x) => fmt(x, true)).join(", ") + "]";
		return "{" + Object.entries(v).map(([k, x]) => k + ": " + fmt(x, true)).join(", ") + "}";
	};
	for (const [m, level] of [["log", "log"], ["info", "info"], ["warn", "warning"], ["error", "error"], ["debug", "debug"]]) {
		const orig = console[m];
		console[m] = function (...args) {
			buf.push(level + ": " + args.map((a) => fmt(a, false)).join(" "));
			return orig.apply(this, args);
		};
	}
	addEventListener("error", (e) => buf.push("exception: Uncaught " + (e.error !== undefined ? String(e.error) : e.message)));
	addEventListener("unhandledrejection", (e) => buf.push("exception: Uncaught (in promise) " + String(e.reason)));
	Object.defineProperty(globalThis, "__browsertest", { value: { drain: () => buf.splice(0) } });
}`

// wkConsoleDrain is an expression: the lines recorded since the last drain.
const wkConsoleDrain = `(globalThis.__browsertest ? globalThis.__browsertest.drain() : [])`

// webkitTab is one session, serving one page at a time.
type webkitTab struct {
	w      *webkit
	d      *wkDriver
	id     string
	record func(string)
}

func (w *webkit) open(ctx context.Context, url string, record func(string)) (tab, int, error) {
	t, err := w.session(ctx)
	if err != nil {
		return nil, 0, err
	}
	t.record = record
	if err := t.d.do(ctx, "POST", "/session/"+t.id+"/url", map[string]any{"url": url}, nil); err != nil {
		t.w.discard(t.d)
		return nil, 0, err
	}
	// The driver's navigation has been seen to return before the load event in a
	// reused session; wait for it here, and install the console hook.
	script := "const done = arguments[arguments.length - 1];\n" + wkConsoleHook +
		"\nif (document.readyState === \"complete\") done(null); else addEventListener(\"load\", () => done(null), { once: true });"
	if err := t.d.do(ctx, "POST", "/session/"+t.id+"/execute/async", map[string]any{"script": script, "args": []any{}}, nil); err != nil {
		t.w.discard(t.d)
		return nil, 0, fmt.Errorf("waiting for the load event: %w", err)
	}
	return t, 0, nil
}

func (t *webkitTab) evaluate(ctx context.Context, expr string) (string, error) {
	// The callback is the script's last argument. The reply carries the console
	// lines printed meanwhile, so that they are recorded when Eval returns.
	script := "const done = arguments[arguments.length - 1];\n" + wkConsoleHook + "\n(" + expr + ").then((r) => done([r, " + wkConsoleDrain + "]));"
	var r [2]jsonv.RawMessage
	err := t.d.do(ctx, "POST", "/session/"+t.id+"/execute/async", map[string]any{"script": script, "args": []any{}}, &r)
	var wd *wdError
	if errors.As(err, &wd) && wd.Code == "javascript error" {
		// evalScript catches everything the body throws, so the script did not
		// compile; WebKit gives the message only.
		return "", errorFromText(wd.Message, "SyntaxError")
	}
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(r[0], &s); err != nil {
		return "", err
	}
	t.recordAll(r[1])
	return s, nil
}

func (t *webkitTab) recordAll(raw jsonv.RawMessage) {
	var lines []string
	json.Unmarshal(raw, &lines)
	for _, l := range lines {
		t.record(l)
	}
}

func (t *webkitTab) flush(ctx context.Context) {
	var raw jsonv.RawMessage
	if t.d.do(ctx, "POST", "/session/"+t.id+"/execute/sync", map[string]any{"script": "return " + wkConsoleDrain, "args": []any{}}, &raw) == nil {
		t.recordAll(raw)
	}
}

func (t *webkitTab) screenshot(ctx context.Context) ([]byte, error) {
	var s string
	if err := t.d.do(ctx, "GET", "/session/"+t.id+"/screenshot", nil, &s); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s)
}

// wkReset clears what the page's origin stored, so that the session can serve
// another page: cookies go by WebDriver, the rest here.
const wkReset = `const done = arguments[arguments.length - 1];
(async () => {
	try { localStorage.clear(); sessionStorage.clear(); } catch {}
	try { for (const d of await indexedDB.databases()) indexedDB.deleteDatabase(d.name); } catch {}
	try { for (const k of await caches.keys()) await caches.delete(k); } catch {}
	try { for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister(); } catch {}
})().then(() => done(null), () => done(null));`

// close clears the session and gives it back to the pool, on about:blank; a
// session that does not answer is ended with its driver.
func (t *webkitTab) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	base := "/session/" + t.id
	err := t.d.do(ctx, "POST", base+"/execute/async", map[string]any{"script": wkReset, "args": []any{}}, nil)
	if err == nil {
		err = t.d.do(ctx, "DELETE", base+"/cookie", nil, nil)
	}
	if err == nil {
		err = t.d.do(ctx, "POST", base+"/url", map[string]any{"url": "about:blank"}, nil)
	}
	if err != nil {
		t.w.discard(t.d)
		return
	}
	t.w.release(&webkitTab{w: t.w, d: t.d, id: t.id})
}
