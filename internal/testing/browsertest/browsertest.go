// Package browsertest drives headless browsers from go test: Debian's Chromium,
// Firefox ESR and WebKitGTK. It is the browser layer of the three test layers in
// DESIGN.md §2: the same scenarios run natively in go test, inside the real .wasm
// under the wazero+goja host, and here, in real browsers, against the real js/
// module and the real .wasm.
//
// Each engine has its own driver behind one API (Browser, Page, Eval, Console,
// Screenshot), all in Go:
//
//   - Chromium (/usr/bin/chromium or $CHROMIUM): chromedp, the DevTools protocol
//     over a pipe. Each Open gets a fresh tab in a fresh browser context (no
//     shared storage, cookies or cache).
//   - Firefox (/usr/bin/firefox-esr or $FIREFOX): WebDriver BiDi over a
//     WebSocket (Firefox has no DevTools protocol). Each Open gets a tab in a
//     fresh user context (Firefox's containers: separate cookies and storage;
//     the HTTP cache is shared).
//   - WebKit (WebKitGTK's MiniBrowser through /usr/bin/WebKitWebDriver or
//     $WEBKITWEBDRIVER, on an Xvfb display): W3C WebDriver over HTTP. The driver
//     serves one session at a time, and commands go to a session's current
//     window, so each open page has a session, and a MiniBrowser process, of its
//     own. Sessions are pooled: a closed page's session is cleared (cookies,
//     storage, caches and service workers of its origin) and reused, so pages
//     one after the other share a process and its memory cache. WebDriver gives
//     no console events and no HTTP status: a hook records console calls from
//     the load event on, and Open cannot see an error status.
//
// $BROWSERS (e.g. "firefox" or "chromium,webkit") selects the engines that Each
// runs; unset, it is all three. Tests that are Chromium's by nature (DevTools
// measurements, Chromium's own LanguageModel, benchmarks) call Shared, which is
// Chromium, and skip loudly when $BROWSERS leaves Chromium out.
//
// The package never skips otherwise. Without a browser, Start returns an error
// that names the install script and the test fails: a skipped browser layer
// looks the same as a passing one in a CI summary, so CI could go green with the
// layer silently off. The one way out is LANGMODEL_SKIP_BROWSER=1, for quick
// local runs; it skips loudly, on stderr too, and must never be set in CI.
//
// Every engine starts once per test binary, on first use (Chromium ~0.4 s,
// Firefox ~3 s, WebKit ~0.5 s, and 0.5–1.5 s more for each further page open
// at the same time). Use it like this:
//
//	func TestMain(m *testing.M) { browsertest.Main(m) }
//
//	func TestPage(t *testing.T) {
//		base := browsertest.Serve(t, "testdata/site", nil)
//		browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
//			p := b.Open(t, base+"/")
//			var n int
//			if err := p.Eval(t.Context(), `return 1 + 2`, &n); err != nil {
//				t.Fatal(err)
//			}
//		})
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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultTimeout bounds a browser start, a page load, an Eval or a screenshot
// whose context has no deadline of its own. A test's own deadline (go test
// -timeout) shortens it.
const DefaultTimeout = 30 * time.Second

// SkipEnv is the environment variable that, set to "1", makes Shared skip instead
// of starting a browser. For quick local runs only; CI must never set it.
const SkipEnv = "LANGMODEL_SKIP_BROWSER"

// BrowsersEnv is the environment variable that selects engines: a comma-separated
// list of Engine names. Unset or empty means every engine.
const BrowsersEnv = "BROWSERS"

// Engine names a browser engine.
type Engine string

const (
	Chromium Engine = "chromium"
	Firefox  Engine = "firefox"
	WebKit   Engine = "webkit"
)

// AllEngines is every engine, in the order Each runs them.
var AllEngines = []Engine{Chromium, Firefox, WebKit}

// Engines returns the engines $BROWSERS selects, in AllEngines' order, or an
// error naming an unknown one.
func Engines() ([]Engine, error) {
	v := strings.TrimSpace(os.Getenv(BrowsersEnv))
	if v == "" {
		return AllEngines, nil
	}
	var out []Engine
	for name := range strings.SplitSeq(v, ",") {
		e := Engine(strings.ToLower(strings.TrimSpace(name)))
		if !slices.Contains(AllEngines, e) {
			return nil, fmt.Errorf("browsertest: %s=%q: unknown engine %q (known: chromium, firefox, webkit)", BrowsersEnv, v, name)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Engine) int { return slices.Index(AllEngines, a) - slices.Index(AllEngines, b) })
	return out, nil
}

// Browser is one running browser of one engine.
type Browser struct {
	Engine Engine
	// Version is the browser's product string, e.g. "Chrome/156.0.8078.79",
	// "Firefox/153.7.0", "WebKitGTK/2.50.6".
	Version string

	drv       driver
	closeOnce sync.Once
}

// driver is what each engine implements: open a page, and stop.
type driver interface {
	// open loads url in a fresh page and waits for its load event. record
	// receives each console line as the page prints it. status is the
	// document's HTTP status, or 0 when the engine does not report it.
	open(ctx context.Context, url string, record func(string)) (t tab, status int, err error)
	close()
}

// tab is one page of a driver.
type tab interface {
	// evaluate runs expr, a JS expression whose value is a Promise of a string,
	// and returns that string. A script that does not compile is a *JSError.
	evaluate(ctx context.Context, expr string) (string, error)
	// flush makes sure every console line printed so far has been recorded.
	flush(ctx context.Context)
	screenshot(ctx context.Context) ([]byte, error)
	close()
}

// StartEngine starts a browser of engine e. ctx bounds the start only; the
// browser runs until Close. Its profile is a fresh temporary directory that is
// removed when it closes.
func StartEngine(ctx context.Context, e Engine) (*Browser, error) {
	var (
		drv     driver
		version string
		err     error
	)
	switch e {
	case Chromium:
		drv, version, err = startChromium(ctx)
	case Firefox:
		drv, version, err = startFirefox(ctx)
	case WebKit:
		drv, version, err = startWebKit(ctx)
	default:
		err = fmt.Errorf("browsertest: unknown engine %q", e)
	}
	if err != nil {
		return nil, err
	}
	return &Browser{Engine: e, Version: version, drv: drv}, nil
}

// Start starts a headless Chromium (StartEngine(ctx, Chromium)).
func Start(ctx context.Context) (*Browser, error) { return StartEngine(ctx, Chromium) }

// Close stops the browser and removes its profile. It is safe to call twice.
func (b *Browser) Close() {
	b.closeOnce.Do(b.drv.close)
}

// sharedBrowser is one engine's browser for the whole test binary.
type sharedBrowser struct {
	once sync.Once
	b    *Browser
	err  error
}

var shared = struct {
	mu       sync.Mutex
	engines  map[Engine]*sharedBrowser
	skipOnce sync.Once
}{engines: map[Engine]*sharedBrowser{}}

// skipIfAsked skips tb when LANGMODEL_SKIP_BROWSER=1, loudly.
func skipIfAsked(tb testing.TB) {
	tb.Helper()
	if os.Getenv(SkipEnv) == "1" {
		msg := "browsertest: " + SkipEnv + "=1: THE BROWSER TESTS DID NOT RUN. For quick local runs only; never set it in CI."
		shared.skipOnce.Do(func() { fmt.Fprintln(os.Stderr, msg) })
		tb.Skip(msg)
	}
}

// SharedEngine returns the test binary's one browser of engine e, starting it on
// first use. If it cannot start, every test that asks for it fails; it skips
// only when LANGMODEL_SKIP_BROWSER=1. It does not look at $BROWSERS: Each does.
// Call Main from TestMain so that browsers are closed and profiles removed.
func SharedEngine(tb testing.TB, e Engine) *Browser {
	tb.Helper()
	skipIfAsked(tb)
	shared.mu.Lock()
	s := shared.engines[e]
	if s == nil {
		s = &sharedBrowser{}
		shared.engines[e] = s
	}
	shared.mu.Unlock()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		s.b, s.err = StartEngine(ctx, e)
	})
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.b
}

// Shared returns the test binary's Chromium (about 0.4 s to start), for tests
// that are Chromium's by nature. When $BROWSERS is set and leaves Chromium out,
// it skips, saying so on stderr too.
func Shared(tb testing.TB) *Browser {
	tb.Helper()
	engines, err := Engines()
	if err != nil {
		tb.Fatal(err)
	}
	if !slices.Contains(engines, Chromium) {
		msg := "browsertest: " + BrowsersEnv + "=" + os.Getenv(BrowsersEnv) + " leaves out Chromium, which this test needs"
		fmt.Fprintln(os.Stderr, msg+": "+tb.Name())
		tb.Skip(msg)
	}
	return SharedEngine(tb, Chromium)
}

// Each runs f once per engine that $BROWSERS selects, as a subtest named by the
// engine (TestX/firefox), with that engine's shared browser. The subtests run
// one after the other; f may start parallel subtests of its own.
func Each(t *testing.T, f func(t *testing.T, b *Browser)) {
	t.Helper()
	eachEngine(t, SharedEngine, false, f)
}

// EachOwn is Each with a browser of the test's own for each engine, started for f and
// closed after it. It is for tests whose pages hold much memory (a wllama engine's wasm
// memory, a 50 MB model): WebKit frees a closed page's wasm memory only when its
// garbage collector runs, so in the shared browser what earlier tests left could make
// the next WebAssembly.Memory fail (RangeError: Out of memory).
//
// Its engines' subtests run in parallel (t.Parallel), each in its browser, so f must not
// share what it changes across engines. llama.cpp in WebKit (wllama's compat build: one
// thread, about four times slower than in Chromium) kept one core busy for minutes while
// the other waited its turn; side by side, Chromium and Firefox run on the other.
func EachOwn(t *testing.T, f func(t *testing.T, b *Browser)) {
	t.Helper()
	eachEngine(t, ownEngine, true, f)
}

// eachEngine runs f once per selected engine, with the browser browser gives it, the
// engines side by side when parallel.
func eachEngine(t *testing.T, browser func(testing.TB, Engine) *Browser, parallel bool, f func(t *testing.T, b *Browser)) {
	t.Helper()
	skipIfAsked(t)
	engines, err := Engines()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range engines {
		t.Run(string(e), func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			f(t, browser(t, e))
		})
	}
}

// ownEngine starts a browser of engine e for tb alone, closed when tb ends (after
// the pages' own cleanups, which run first).
func ownEngine(tb testing.TB, e Engine) *Browser {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	b, err := StartEngine(ctx, e)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(b.Close)
	return b
}

// Main runs the tests and closes the shared browsers. Call it from TestMain:
//
//	func TestMain(m *testing.M) { browsertest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	for _, s := range shared.engines {
		if s.b != nil {
			s.b.Close()
		}
	}
	shared.mu.Unlock()
	os.Exit(code)
}

// Page is one page showing one URL. Use it from one goroutine at a time; open
// another Page for parallel work.
type Page struct {
	Engine Engine

	tb  testing.TB
	url string
	tab tab

	mu      sync.Mutex
	console []string
	close   sync.Once
}

// Open opens url in a fresh page (see the package comment for what each engine
// isolates), waits for the load event and returns the page. It fails the test if
// the page does not load or answers with an HTTP error status (WebKit does not
// report the status). The page closes when the test ends; if the test failed,
// its console is logged first (and a screenshot written to $ARTIFACTS when that
// is set).
func (b *Browser) Open(tb testing.TB, url string) *Page {
	tb.Helper()
	p, err := b.open(tb, url)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	return p
}

// open is Open, returning its failure: the page closes when tb ends, and when the page
// answered with an HTTP error status it is closed at once.
func (b *Browser) open(tb testing.TB, url string) (*Page, error) {
	p := &Page{Engine: b.Engine, tb: tb, url: url}
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout(context.Background()))
	defer cancel()
	t, status, err := b.drv.open(ctx, url, p.record)
	if err != nil {
		return nil, fmt.Errorf("browsertest: %s: opening %s: %w", b.Engine, url, err)
	}
	p.tab = t
	tb.Cleanup(func() {
		p.reportFailure()
		p.close.Do(t.close)
	})
	if status >= 400 {
		p.Close()
		return nil, fmt.Errorf("browsertest: %s: opening %s: HTTP %d", b.Engine, url, status)
	}
	return p, nil
}

// Close closes the page before the test ends, for a test that opens many (its console is
// then not reported on failure).
func (p *Page) Close() { p.close.Do(p.tab.close) }

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

var errorName = regexp.MustCompile(`^[A-Z][A-Za-z]*(Error|Exception)$`)

// errorFromText makes a JSError of an engine's "Name: message" text for an
// exception it reports only as text; text without a name gets fallbackName.
func errorFromText(text, fallbackName string) *JSError {
	first, _, _ := strings.Cut(text, "\n")
	if name, msg, ok := strings.Cut(first, ": "); ok && errorName.MatchString(name) {
		return &JSError{Name: name, Message: msg, Stack: text}
	}
	return &JSError{Name: fallbackName, Message: first, Stack: text}
}

// evalScript wraps an Eval body into an expression whose value is a Promise of a
// string: the JSON of an evalResult made in the page. So every engine's driver
// carries one string, the result is exactly what JSON.stringify gives (undefined
// → absent), and a throw crosses as plain data that keeps a DOMException's name.
const evalScript = `(async () => {
%s
})().then((v) => ({ json: JSON.stringify(v) })).catch((e) => ({
	error: e !== null && typeof e === "object"
		? { name: String(e.name ?? ""), message: String(e.message ?? e), stack: String(e.stack ?? "") }
		: { name: "", message: String(e), stack: "" },
})).then((r) => JSON.stringify(r))`

// evalResult is what evalScript resolves to: one of the two is set.
type evalResult struct {
	JSON  *string  `json:"json"` // nil when the body returned undefined
	Error *JSError `json:"error"`
}

// Eval runs body as the body of an async function in the page
// ((async () => { body })()), awaits it, and decodes its JSON-serialisable result
// into out (nil to ignore it; undefined decodes as null). A throw or a rejection
// comes back as a *JSError carrying the JS error's name and message. ctx, or
// DefaultTimeout when ctx has no deadline, bounds the call. Console lines printed
// while it ran are recorded when it returns.
func (p *Page) Eval(ctx context.Context, body string, out any) error {
	c, cancel := context.WithTimeout(ctx, p.timeout(ctx))
	defer cancel()
	s, err := p.tab.evaluate(c, fmt.Sprintf(evalScript, body))
	if err != nil {
		if _, ok := err.(*JSError); ok { // the body did not compile
			return err
		}
		if ctx.Err() != nil { // the caller's context ended: say so, not "canceled"
			err = context.Cause(ctx)
		} else if c.Err() != nil {
			err = c.Err()
		}
		return fmt.Errorf("browsertest: eval: %w", err)
	}
	var res evalResult
	if err := json.Unmarshal([]byte(s), &res); err != nil {
		return fmt.Errorf("browsertest: eval: decoding %.200s: %w", s, err)
	}
	switch {
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

// Console returns what the page printed so far, one line per message: console.*
// calls ("log: hello 42"), uncaught exceptions and unhandled rejections
// ("exception: Uncaught Error: boom ..."), and, in Chromium and Firefox, the
// browser's own log ("error: Failed to load resource ..."). Messages printed
// while an Eval ran are there when Eval returns. WebKit has no console events
// over WebDriver: there, calls are recorded from the load event on (by a hook
// Open installs), and the browser's own messages not at all.
func (p *Page) Console() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	p.tab.flush(ctx)
	cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.console...)
}

// record adds a console line. Drivers call it from their read loops: it must be
// quick.
func (p *Page) record(line string) {
	p.mu.Lock()
	p.console = append(p.console, line)
	p.mu.Unlock()
}

// viewporter is a tab whose driver can set the viewport's size (Chromium's).
type viewporter interface {
	setViewport(ctx context.Context, width, height int, mobile bool) error
}

// SetViewport makes the page's viewport width by height CSS pixels, as on a desktop
// window or (mobile) a phone, and returns once the page has laid itself out again.
// Only Chromium can: elsewhere it is an error.
func (p *Page) SetViewport(width, height int, mobile bool) error {
	v, ok := p.tab.(viewporter)
	if !ok {
		return fmt.Errorf("browsertest: %s cannot set the viewport", p.Engine)
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout(context.Background()))
	defer cancel()
	if err := v.setViewport(ctx, width, height, mobile); err != nil {
		return fmt.Errorf("browsertest: viewport: %w", err)
	}
	return p.Eval(ctx, `await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));`, nil)
}

// Screenshot writes a PNG of the page's viewport to path, creating its directory.
func (p *Page) Screenshot(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout(context.Background()))
	defer cancel()
	png, err := p.tab.screenshot(ctx)
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
	p.tb.Logf("browsertest: %s console of %s:\n\t%s", p.Engine, p.url, strings.Join(console, "\n\t"))
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
