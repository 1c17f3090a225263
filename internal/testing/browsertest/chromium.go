package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium is a headless Chromium driven by chromedp.
type chromium struct {
	ctx         context.Context // the chromedp context that owns the process
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	group       *procGroup // Chromium and every process it starts
}

// chromiumPath is $CHROMIUM, or Debian's /usr/bin/chromium. Test tools that
// download their own browser fail here (no network), so there is no fallback.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

func startChromium(ctx context.Context) (driver, string, error) {
	path := chromiumPath()
	if _, err := exec.LookPath(path); err != nil {
		return nil, "", fmt.Errorf("browsertest: no Chromium: %w; run .ci/install-chromium.sh (or set CHROMIUM to the browser's path)", err)
	}
	group, err := newProcGroup()
	if err != nil {
		return nil, "", err
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.ModifyCmdFunc(group.prepare),
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
		// document.modelContext (WebMCP), for the tests of create({modelContext}).
		chromedp.Flag("enable-features", "WebMCP"),
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
		group.kill()
		return nil, "", fmt.Errorf("browsertest: starting %s: %w", path, err)
	}
	return &chromium{ctx: bctx, cancel: cancel, allocCancel: allocCancel, group: group}, v.Product, nil
}

func (c *chromium) close() {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	_ = chromedp.Cancel(ctx) // graceful close; cancel below kills what is left
	cancel()
	c.cancel()
	c.allocCancel()
	c.group.kill()
}

// chromiumTab is a tab in a fresh browser context.
type chromiumTab struct {
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc
}

func (c *chromium) open(ctx context.Context, url string, record func(string)) (tab, int, error) {
	tctx, cancel := chromedp.NewContext(c.ctx,
		chromedp.WithNewBrowserContext(),
		// A listener, unlike chromedp.Console, runs in the tab's read loop, so every
		// message printed before an Eval's reply is recorded when Eval returns.
		chromedp.WithListener(func(ev any) {
			if line, ok := chromiumConsoleLine(ev); ok {
				record(line)
			}
		}),
	)
	// The first command on a tab binds the tab to the context it runs on, so it
	// runs on tctx itself, and ctx can only cancel it.
	stop := context.AfterFunc(ctx, cancel)
	resp, err := chromedp.Run(tctx, chromedp.NavigateResponse(url))
	stop()
	if err != nil {
		cancel()
		return nil, 0, err
	}
	return &chromiumTab{ctx: tctx, cancel: cancel}, int(resp.Status), nil
}

// bound returns a context on the tab that ends with ctx.
func (t *chromiumTab) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(t.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return c, func() {
		stop()
		cancel()
	}
}

func (t *chromiumTab) evaluate(ctx context.Context, expr string) (string, error) {
	c, cancel := t.bound(ctx)
	defer cancel()
	s, err := chromedp.Run(c, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	var exc *chromedp.ExceptionError
	if errors.As(err, &exc) {
		return "", exceptionError(exc.ExceptionDetails)
	}
	return s, err
}

func (t *chromiumTab) flush(context.Context) {}

func (t *chromiumTab) screenshot(ctx context.Context) ([]byte, error) {
	c, cancel := t.bound(ctx)
	defer cancel()
	return chromedp.Run(c, chromedp.CaptureScreenshot())
}

// setViewport emulates a device width by height CSS pixels wide (mobile: a phone's
// viewport, meta viewport honoured, with touch).
func (t *chromiumTab) setViewport(ctx context.Context, width, height int, mobile bool) error {
	c, cancel := t.bound(ctx)
	defer cancel()
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateLandscape}
	if mobile {
		opts = []chromedp.EmulateViewportOption{chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch}
	}
	_, err := chromedp.Run(c, chromedp.EmulateViewport(int64(width), int64(height), opts...))
	return err
}

func (t *chromiumTab) close() { t.cancel() }

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

// chromiumConsoleLine renders a console call, an uncaught exception or a
// browser log entry as one line. It runs in the tab's read loop: it must be
// quick and send no command.
func chromiumConsoleLine(ev any) (string, bool) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		args := make([]string, len(ev.Args))
		for i, a := range ev.Args {
			args[i] = formatValue(a)
		}
		return string(ev.Type) + ": " + strings.Join(args, " "), true
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		line := "exception: " + d.Text
		if d.Exception != nil {
			line += " " + formatValue(d.Exception)
		}
		return line, true
	case *log.EventEntryAdded:
		line := string(ev.Entry.Level) + ": " + ev.Entry.Text
		if ev.Entry.URL != "" {
			line += " (" + ev.Entry.URL + ")"
		}
		return line, true
	}
	return "", false
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
