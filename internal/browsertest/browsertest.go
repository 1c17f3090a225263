// Package browsertest drives Debian's headless Chromium from go test. It is the
// browser layer of the three test layers in DESIGN.md §2: the same scenarios run
// natively in go test, inside the real .wasm under the wazero+goja host, and here,
// in a real browser, against the real js/ module and the real .wasm.
//
// The package never skips. Without a browser, Start returns an error that names
// .ci/install-chromium.sh and Shared fails the test: a skipped browser layer looks
// the same as a passing one in a CI summary, so CI could go green with the layer
// silently off. The one way out is LANGMODEL_SKIP_BROWSER=1, for quick local runs;
// it skips loudly, on stderr too, and must never be set in CI.
//
// The browser is /usr/bin/chromium (or $CHROMIUM), started once per test binary by
// Shared; each Open gets a fresh tab in a fresh browser context (no shared storage,
// cookies or cache). Use it like this:
//
//	func TestMain(m *testing.M) { browsertest.Main(m) }
//
//	func TestPage(t *testing.T) {
//		base := browsertest.Serve(t, "testdata/site", nil)
//		p := browsertest.Shared(t).Open(t, base+"/")
//		var n int
//		if err := p.Eval(t.Context(), `return 1 + 2`, &n); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// A test that fails logs what its pages printed, and with $ARTIFACTS set it also
// leaves a screenshot of each page there.
//
// Only _test.go files may import this package: it links net/http and chromedp,
// which must never reach the GOOS=js module.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// DefaultTimeout bounds a browser start, a page load, an Eval or a screenshot
// whose context has no deadline of its own. A test's own deadline (go test
// -timeout) shortens it.
const DefaultTimeout = 30 * time.Second

// SkipEnv is the environment variable that, set to "1", makes Shared skip instead
// of starting a browser. For quick local runs only; CI must never set it.
const SkipEnv = "LANGMODEL_SKIP_BROWSER"

// Browser is one headless Chromium process.
type Browser struct {
	// Version is the browser's product string, e.g. "Chrome/156.0.8078.79".
	Version string

	ctx         context.Context // the chromedp context that owns the process
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	closeOnce   sync.Once
}

// chromiumPath is $CHROMIUM, or Debian's /usr/bin/chromium. Test tools that
// download their own browser fail here (no network), so there is no fallback.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// Start starts a headless Chromium. ctx bounds the start only; the browser runs
// until Close. The profile (--user-data-dir) is a fresh temporary directory that
// is removed when the browser exits.
func Start(ctx context.Context) (*Browser, error) {
	path := chromiumPath()
	if _, err := exec.LookPath(path); err != nil {
		return nil, fmt.Errorf("browsertest: no Chromium: %w; run .ci/install-chromium.sh (or set CHROMIUM to the browser's path)", err)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Timings must not depend on which window the browser thinks is in front.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	)
	bctx, cancel := chromedp.NewContext(allocCtx)
	// The first command binds the browser's life to the context it runs on, so it
	// must run on bctx itself; ctx can only cancel it.
	stop := context.AfterFunc(ctx, cancel)
	v, err := chromedp.CallBrowser(bctx, browser.GetVersion, cdp.Empty{})
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		allocCancel()
		return nil, fmt.Errorf("browsertest: starting %s: %w", path, err)
	}
	return &Browser{Version: v.Product, ctx: bctx, cancel: cancel, allocCancel: allocCancel}, nil
}

// Close stops the browser and removes its profile. It is safe to call twice.
func (b *Browser) Close() {
	b.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		_ = chromedp.Cancel(ctx) // graceful close; cancel below kills what is left
		cancel()
		b.cancel()
		b.allocCancel()
	})
}

var shared struct {
	once     sync.Once
	b        *Browser
	err      error
	skipOnce sync.Once
}

// Shared returns the test binary's one browser, starting it on first use
// (about 0.4 s). If the browser cannot start, every test that calls Shared fails;
// it skips only when LANGMODEL_SKIP_BROWSER=1. Call Main from TestMain so the
// browser is closed and its profile removed when the tests end.
func Shared(tb testing.TB) *Browser {
	tb.Helper()
	if os.Getenv(SkipEnv) == "1" {
		msg := "browsertest: " + SkipEnv + "=1: THE BROWSER TESTS DID NOT RUN. For quick local runs only; never set it in CI."
		shared.skipOnce.Do(func() { fmt.Fprintln(os.Stderr, msg) })
		tb.Skip(msg)
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		shared.b, shared.err = Start(ctx)
	})
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.b
}

// Main runs the tests and closes the shared browser. Call it from TestMain:
//
//	func TestMain(m *testing.M) { browsertest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if shared.b != nil {
		shared.b.Close()
	}
	os.Exit(code)
}

// Page is one tab showing one URL. Use it from one goroutine at a time; open
// another Page for parallel work.
type Page struct {
	tb  testing.TB
	url string
	ctx context.Context // the tab's chromedp context

	mu      sync.Mutex
	console []string
}

// Open opens url in a new tab of a fresh browser context, waits for the load
// event and returns the page. It fails the test if the page does not load or
// answers with an HTTP error status. The tab closes when the test ends; if the
// test failed, its console is logged first (and a screenshot written to
// $ARTIFACTS when that is set).
func (b *Browser) Open(tb testing.TB, url string) *Page {
	tb.Helper()
	p := &Page{tb: tb, url: url}
	ctx, cancel := chromedp.NewContext(b.ctx,
		chromedp.WithNewBrowserContext(),
		// A listener, unlike chromedp.Console, runs in the tab's read loop, so every
		// message printed before an Eval's reply is recorded when Eval returns.
		chromedp.WithListener(p.record),
	)
	p.ctx = ctx
	tb.Cleanup(func() {
		p.reportFailure()
		cancel()
	})
	// The first command on a tab binds the tab to the context it runs on, so it
	// runs on ctx itself, and a timer bounds it.
	timer := time.AfterFunc(p.timeout(context.Background()), cancel)
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	timer.Stop()
	if err != nil {
		tb.Fatalf("browsertest: opening %s: %v", url, err)
	}
	if resp.Status >= 400 {
		tb.Fatalf("browsertest: opening %s: HTTP %d %s", url, resp.Status, resp.StatusText)
	}
	return p
}

// JSError is a JavaScript exception that Eval caught: what the page threw, or a
// syntax error in the body.
type JSError struct {
	Name    string `json:"name"`    // e.g. "TypeError", "AbortError" (a DOMException's name)
	Message string `json:"message"` // the error's message, or String(value) for a thrown non-object
	Stack   string `json:"stack"`   // the error's stack, when it has one
}

func (e *JSError) Error() string {
	if e.Name == "" {
		return "js: thrown: " + e.Message
	}
	return "js: " + e.Name + ": " + e.Message
}

// evalScript wraps an Eval body. The result crosses as a JSON string made in the
// page, so Eval sees exactly what JSON.stringify gives (undefined → absent), and a
// throw crosses as plain data that keeps a DOMException's name.
const evalScript = `(async () => {
%s
})().then((v) => ({ json: JSON.stringify(v) })).catch((e) => ({
	error: e !== null && typeof e === "object"
		? { name: String(e.name ?? ""), message: String(e.message ?? e), stack: String(e.stack ?? "") }
		: { name: "", message: String(e), stack: "" },
}))`

// evalResult is what evalScript resolves to: one of the two is set.
type evalResult struct {
	JSON  *string  `json:"json"` // nil when the body returned undefined
	Error *JSError `json:"error"`
}

// Eval runs body as the body of an async function in the page
// ((async () => { body })()), awaits it, and decodes its JSON-serialisable result
// into out (nil to ignore it; undefined decodes as null). A throw or a rejection
// comes back as a *JSError carrying the JS error's name and message. ctx, or
// DefaultTimeout when ctx has no deadline, bounds the call.
func (p *Page) Eval(ctx context.Context, body string, out any) error {
	tabCtx, cancel := p.bound(ctx)
	defer cancel()
	res, err := chromedp.Run(tabCtx, chromedp.Evaluate[evalResult](fmt.Sprintf(evalScript, body), chromedp.EvalAwaitPromise))
	var exc *chromedp.ExceptionError
	switch {
	case errors.As(err, &exc): // the body did not compile
		return exceptionError(exc.ExceptionDetails)
	case err != nil:
		if ctx.Err() != nil { // the caller's context ended: say so, not "canceled"
			err = context.Cause(ctx)
		}
		return fmt.Errorf("browsertest: eval: %w", err)
	case res.Error != nil:
		return res.Error
	case out == nil:
		return nil
	}
	raw := "null"
	if res.JSON != nil {
		raw = *res.JSON
	}
	if err := json.Unmarshal([]byte(raw), out); err != nil {
		return fmt.Errorf("browsertest: eval: decoding %.200s into %T: %w", raw, out, err)
	}
	return nil
}

// exceptionError turns the protocol's report of an exception into a JSError.
func exceptionError(d *runtime.ExceptionDetails) *JSError {
	e := &JSError{Name: "Error", Message: d.Text}
	if o := d.Exception; o != nil && o.ClassName != "" {
		first, _, _ := strings.Cut(o.Description, "\n")
		e.Name = o.ClassName
		e.Message = strings.TrimPrefix(first, o.ClassName+": ")
		e.Stack = o.Description
	}
	return e
}

// Console returns what the page printed so far, one line per message: console.*
// calls ("log: hello 42"), uncaught exceptions and unhandled rejections
// ("exception: Uncaught Error: boom ..."), and the browser's own log ("error:
// Failed to load resource ..."). Messages printed while an Eval ran are there
// when Eval returns.
func (p *Page) Console() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.console...)
}

// record is the tab's listener. It runs in the tab's read loop: it must be quick
// and send no command.
func (p *Page) record(ev any) {
	var line string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		args := make([]string, len(ev.Args))
		for i, a := range ev.Args {
			args[i] = formatValue(a)
		}
		line = string(ev.Type) + ": " + strings.Join(args, " ")
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		line = "exception: " + d.Text
		if d.Exception != nil {
			line += " " + formatValue(d.Exception)
		}
	case *log.EventEntryAdded:
		line = string(ev.Entry.Level) + ": " + ev.Entry.Text
		if ev.Entry.URL != "" {
			line += " (" + ev.Entry.URL + ")"
		}
	default:
		return
	}
	p.mu.Lock()
	p.console = append(p.console, line)
	p.mu.Unlock()
}

// formatValue renders a console argument roughly as DevTools does: strings as
// they are, other primitives as literals, objects by their preview.
func formatValue(o *runtime.RemoteObject) string {
	switch {
	case o.Type == runtime.RemoteObjectTypeString:
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
	case o.Type == runtime.RemoteObjectTypeUndefined:
		return "undefined"
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	case len(o.Value) > 0:
		return string(o.Value)
	case o.Preview != nil && o.Subtype != runtime.RemoteObjectSubtypeError:
		parts := make([]string, 0, len(o.Preview.Properties))
		for _, prop := range o.Preview.Properties {
			v := prop.Value
			if prop.Type == "string" {
				v = fmt.Sprintf("%q", v)
			}
			if o.Subtype == runtime.RemoteObjectSubtypeArray {
				parts = append(parts, v)
			} else {
				parts = append(parts, prop.Name+": "+v)
			}
		}
		if o.Preview.Overflow {
			parts = append(parts, "…")
		}
		if o.Subtype == runtime.RemoteObjectSubtypeArray {
			return "[" + strings.Join(parts, ", ") + "]"
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return o.Description
}

// Screenshot writes a PNG of the page's viewport to path, creating its directory.
func (p *Page) Screenshot(path string) error {
	ctx, cancel := p.bound(context.Background())
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return fmt.Errorf("browsertest: screenshot: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// reportFailure logs the console of a page whose test failed, and leaves a
// screenshot in $ARTIFACTS when that is set.
func (p *Page) reportFailure() {
	if !p.tb.Failed() {
		return
	}
	console := p.Console()
	if len(console) == 0 {
		console = []string{"(nothing)"}
	}
	p.tb.Logf("browsertest: console of %s:\n\t%s", p.url, strings.Join(console, "\n\t"))
	if dir := os.Getenv("ARTIFACTS"); dir != "" {
		path := filepath.Join(dir, "browsertest", unsafeName.ReplaceAllString(p.tb.Name(), "_")+".png")
		if err := p.Screenshot(path); err != nil {
			p.tb.Logf("browsertest: %v", err)
		} else {
			p.tb.Logf("browsertest: screenshot of %s: %s", p.url, path)
		}
	}
}

// timeout is how long a call on ctx may take: ctx's own deadline or
// DefaultTimeout, cut to end a second before the test's deadline.
func (p *Page) timeout(ctx context.Context) time.Duration {
	d := DefaultTimeout
	if dl, ok := ctx.Deadline(); ok {
		d = time.Until(dl)
	}
	if t, ok := p.tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := t.Deadline(); ok {
			d = min(d, time.Until(dl)-time.Second)
		}
	}
	return d
}

// bound returns a context on the tab that ends with ctx or after p.timeout(ctx).
func (p *Page) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(p.ctx, p.timeout(ctx))
	stop := context.AfterFunc(ctx, cancel)
	return c, func() {
		stop()
		cancel()
	}
}
