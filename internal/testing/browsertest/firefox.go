package browsertest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"langmodel/internal/jsonv"
)

// firefox is a headless Firefox driven over WebDriver BiDi: JSON commands and
// events on one WebSocket, https://w3c.github.io/webdriver-bidi/.
type firefox struct {
	cmd     *exec.Cmd
	group   *procGroup // Firefox and its content processes
	exited  chan struct{}
	profile string
	ws      *wsConn

	mu      sync.Mutex
	nextID  int
	pending map[int]chan bidiReply
	tabs    map[string]func(string) // browsing context id → its page's record
	status  map[string]int          // navigation id → the document's HTTP status
	dead    error                   // set when the connection is gone
}

type bidiReply struct {
	Type    string           `json:"type"` // "success", "error" or "event"
	ID      int              `json:"id"`
	Result  jsonv.RawMessage `json:"result"`
	Error   string           `json:"error"`
	Message string           `json:"message"`
	Method  string           `json:"method"`
	Params  jsonv.RawMessage `json:"params"`
}

// firefoxPath is $FIREFOX, or Debian's /usr/bin/firefox-esr.
func firefoxPath() string {
	if p := os.Getenv("FIREFOX"); p != "" {
		return p
	}
	return "/usr/bin/firefox-esr"
}

// firefoxPrefs go into the fresh profile's user.js. The remote agent sets its own
// recommended preferences for automation (no updates, no telemetry, no first-run
// pages); these silence what remains of the background traffic a test run does
// not want (there is no network here), and run a tab that is not the front one on a
// front tab's timers: Firefox clamps a background tab's setTimeout to a second
// (min_background_timeout_value, or its _without_budget_throttling twin once budget
// throttling is off), and tests run pages side by side, each waiting on timers (an
// in-page engine's fake yields to the page's timers between its chunks: 30 chunks,
// 30 s).
const firefoxPrefs = `user_pref("remote.active-protocols", 1);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("services.settings.server", "http://127.0.0.1:9/");
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("app.normandy.enabled", false);
user_pref("messaging-system.rsexperimentloader.enabled", false);
user_pref("dom.timeout.enable_budget_timer_throttling", false);
user_pref("dom.min_background_timeout_value", 4);
user_pref("dom.min_background_timeout_value_without_budget_throttling", 4);
`

var bidiListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

func startFirefox(ctx context.Context) (driver, string, error) {
	path := firefoxPath()
	if _, err := exec.LookPath(path); err != nil {
		return nil, "", fmt.Errorf("browsertest: no Firefox: %w; run .ci/install-browsers.sh (or set FIREFOX to the browser's path)", err)
	}
	profile, err := os.MkdirTemp("", "browsertest-firefox-")
	if err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(firefoxPrefs), 0o644); err != nil {
		os.RemoveAll(profile)
		return nil, "", err
	}
	cmd := exec.Command(path, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port=0", "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(profile)
		return nil, "", err
	}
	group, err := newProcGroup()
	if err != nil {
		os.RemoveAll(profile)
		return nil, "", err
	}
	if err := group.start(cmd); err != nil {
		group.kill()
		os.RemoveAll(profile)
		return nil, "", fmt.Errorf("browsertest: starting %s: %w", path, err)
	}
	f := &firefox{cmd: cmd, group: group, exited: make(chan struct{}), profile: profile,
		pending: map[int]chan bidiReply{}, tabs: map[string]func(string){}, status: map[string]int{}}
	// Firefox prints where it listens on stderr; the rest of its chatter is read
	// and dropped, so that a full pipe never blocks it.
	found := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stderr)
		for {
			line, err := r.ReadString('\n')
			if m := bidiListening.FindStringSubmatch(line); m != nil {
				found <- m[1]
			}
			if err != nil {
				break
			}
		}
		io.Copy(io.Discard, r)
		cmd.Wait()
		close(f.exited)
	}()
	fail := func(err error) (driver, string, error) {
		f.close()
		return nil, "", fmt.Errorf("browsertest: starting %s: %w", path, err)
	}
	var wsURL string
	select {
	case wsURL = <-found:
	case <-f.exited:
		return fail(errors.New("it exited before listening for WebDriver BiDi"))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	if f.ws, err = dialWS(ctx, wsURL+"/session"); err != nil {
		return fail(err)
	}
	go f.read()
	var s struct {
		Capabilities struct {
			BrowserName    string `json:"browserName"`
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	if err := f.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, &s); err != nil {
		return fail(err)
	}
	if err := f.call(ctx, "session.subscribe", map[string]any{"events": []string{"log.entryAdded", "network.responseCompleted"}}, nil); err != nil {
		return fail(err)
	}
	return f, "Firefox/" + s.Capabilities.BrowserVersion, nil
}

// read routes replies to their callers and events to their pages, until the
// connection ends.
func (f *firefox) read() {
	for {
		msg, err := f.ws.ReadMessage()
		if err != nil {
			f.mu.Lock()
			f.dead = fmt.Errorf("firefox: connection lost: %w", err)
			for id, ch := range f.pending {
				ch <- bidiReply{Type: "error", Error: "connection lost", Message: err.Error()}
				delete(f.pending, id)
			}
			f.mu.Unlock()
			return
		}
		var r bidiReply
		if json.Unmarshal(msg, &r) != nil {
			continue
		}
		if r.Type == "event" {
			f.event(r.Method, r.Params)
			continue
		}
		f.mu.Lock()
		ch := f.pending[r.ID]
		delete(f.pending, r.ID)
		f.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// event records what a page printed, and the HTTP status of documents.
func (f *firefox) event(method string, params jsonv.RawMessage) {
	switch method {
	case "log.entryAdded":
		var e struct {
			Type   string                   `json:"type"`
			Level  string                   `json:"level"`
			Text   string                   `json:"text"`
			Method string                   `json:"method"`
			Args   []bidiValue              `json:"args"`
			Source struct{ Context string } `json:"source"`
		}
		if json.Unmarshal(params, &e) != nil {
			return
		}
		f.mu.Lock()
		record := f.tabs[e.Source.Context]
		f.mu.Unlock()
		if record == nil {
			return
		}
		switch e.Type {
		case "console":
			args := make([]string, len(e.Args))
			for i, a := range e.Args {
				args[i] = a.format(false)
			}
			method := e.Method
			if method == "warn" { // as Chromium names it
				method = "warning"
			}
			record(method + ": " + strings.Join(args, " "))
		case "javascript": // as Chromium words it; Firefox does not tell a rejection from a throw
			record("exception: Uncaught " + e.Text)
		default:
			record(e.Level + ": " + e.Text)
		}
	case "network.responseCompleted":
		var e struct {
			Navigation *string `json:"navigation"`
			Response   struct {
				Status int `json:"status"`
			} `json:"response"`
		}
		if json.Unmarshal(params, &e) != nil || e.Navigation == nil {
			return
		}
		f.mu.Lock()
		f.status[*e.Navigation] = e.Response.Status
		f.mu.Unlock()
	}
}

// call sends one command and decodes its result into out (nil to drop it).
func (f *firefox) call(ctx context.Context, method string, params any, out any) error {
	ch := make(chan bidiReply, 1)
	f.mu.Lock()
	if f.dead != nil {
		f.mu.Unlock()
		return f.dead
	}
	f.nextID++
	id := f.nextID
	f.pending[id] = ch
	f.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err == nil {
		err = f.ws.WriteText(msg)
	}
	if err != nil {
		f.forget(id)
		return err
	}
	select {
	case r := <-ch:
		if r.Type == "error" {
			return fmt.Errorf("firefox: %s: %s: %s", method, r.Error, r.Message)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(r.Result, out)
	case <-ctx.Done():
		f.forget(id) // a late reply is dropped
		return ctx.Err()
	}
}

func (f *firefox) forget(id int) {
	f.mu.Lock()
	delete(f.pending, id)
	f.mu.Unlock()
}

func (f *firefox) close() {
	if f.ws != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_ = f.call(ctx, "browser.close", map[string]any{}, nil)
		cancel()
	}
	select {
	case <-f.exited:
	case <-time.After(5 * time.Second):
	}
	f.group.kill()
	<-f.exited
	if f.ws != nil {
		f.ws.Close()
	}
	os.RemoveAll(f.profile)
}

// firefoxTab is a tab in a user context of its own.
type firefoxTab struct {
	f           *firefox
	context     string
	userContext string
}

func (f *firefox) open(ctx context.Context, url string, record func(string)) (tab, int, error) {
	var uc struct {
		UserContext string `json:"userContext"`
	}
	if err := f.call(ctx, "browser.createUserContext", map[string]any{}, &uc); err != nil {
		return nil, 0, err
	}
	var bc struct {
		Context string `json:"context"`
	}
	var err error
	// Under load, Firefox now and then reports the tab it is creating as
	// discarded ("no such frame"); another try gets one.
	for try := 0; try < 3; try++ {
		err = f.call(ctx, "browsingContext.create", map[string]any{"type": "tab", "userContext": uc.UserContext}, &bc)
		if err == nil || !strings.Contains(err.Error(), "no such frame") {
			break
		}
	}
	if err != nil {
		f.removeUserContext(uc.UserContext)
		return nil, 0, err
	}
	t := &firefoxTab{f: f, context: bc.Context, userContext: uc.UserContext}
	f.mu.Lock()
	f.tabs[bc.Context] = record
	f.mu.Unlock()
	var nav struct {
		Navigation string `json:"navigation"`
	}
	if err := f.call(ctx, "browsingContext.navigate", map[string]any{"context": bc.Context, "url": url, "wait": "complete"}, &nav); err != nil {
		t.close()
		return nil, 0, err
	}
	f.mu.Lock()
	status := f.status[nav.Navigation]
	delete(f.status, nav.Navigation)
	f.mu.Unlock()
	return t, status, nil
}

func (f *firefox) removeUserContext(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = f.call(ctx, "browser.removeUserContext", map[string]any{"userContext": id}, nil)
}

func (t *firefoxTab) evaluate(ctx context.Context, expr string) (string, error) {
	var r struct {
		Type             string    `json:"type"` // "success" or "exception"
		Result           bidiValue `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	err := t.f.call(ctx, "script.evaluate", map[string]any{
		"expression": expr, "target": map[string]any{"context": t.context},
		"awaitPromise": true, "resultOwnership": "none",
	}, &r)
	switch {
	case err != nil:
		return "", err
	case r.Type == "exception": // evalScript catches everything else: the body did not compile
		return "", errorFromText(r.ExceptionDetails.Text, "SyntaxError")
	case r.Result.Type != "string":
		return "", fmt.Errorf("firefox: script.evaluate returned a %s", r.Result.Type)
	}
	var s string
	err = json.Unmarshal(r.Result.Value, &s)
	return s, err
}

// flush: Firefox sends a console event before the reply to the command during
// which it was printed, on the same connection, so nothing is pending.
func (t *firefoxTab) flush(context.Context) {}

func (t *firefoxTab) screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := t.f.call(ctx, "browsingContext.captureScreenshot", map[string]any{"context": t.context}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

func (t *firefoxTab) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = t.f.call(ctx, "browsingContext.close", map[string]any{"context": t.context}, nil)
	t.f.mu.Lock()
	delete(t.f.tabs, t.context)
	t.f.mu.Unlock()
	t.f.removeUserContext(t.userContext)
}

// bidiValue is a BiDi RemoteValue: a type and, for what serialises, a value.
type bidiValue struct {
	Type  string           `json:"type"`
	Value jsonv.RawMessage `json:"value"`
}

// format renders a console argument as Chromium's driver does: strings as they
// are at the top level and quoted inside objects, other primitives as literals,
// objects and arrays by their properties.
func (v bidiValue) format(nested bool) string {
	switch v.Type {
	case "undefined", "null":
		return v.Type
	case "string":
		var s string
		json.Unmarshal(v.Value, &s)
		if nested {
			return strconv.Quote(s)
		}
		return s
	case "number", "boolean":
		var s string
		if json.Unmarshal(v.Value, &s) == nil { // NaN, -0, Infinity
			return s
		}
		return string(v.Value)
	case "bigint":
		var s string
		json.Unmarshal(v.Value, &s)
		return s + "n"
	case "array":
		var items []bidiValue
		if json.Unmarshal(v.Value, &items) != nil {
			return "Array"
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = it.format(true)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case "object":
		var pairs [][2]jsonv.RawMessage
		if json.Unmarshal(v.Value, &pairs) != nil {
			return "Object"
		}
		parts := make([]string, 0, len(pairs))
		for _, kv := range pairs {
			var key string
			var val bidiValue
			if json.Unmarshal(kv[0], &key) != nil || json.Unmarshal(kv[1], &val) != nil {
				continue
			}
			parts = append(parts, key+": "+val.format(true))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.Type
}
