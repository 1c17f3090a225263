package jshost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// programs are the GOOS=js test programs under wasm/testdata/jshost/ (syscall/js
// lives under wasm/ only, DESIGN.md §2), built once by TestMain.
var programs = []string{"echo", "reenter", "print", "deadlock", "grow", "panic"}

var wasmDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jshost-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := []string{"build", "-trimpath", "-o", dir + string(os.PathSeparator)}
	for _, p := range programs {
		args = append(args, "../../../wasm/testdata/jshost/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "jshost: GOOS=js GOARCH=wasm go %s: %v\n%s", strings.Join(args, " "), err, out)
		os.Exit(1)
	}
	wasmDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func program(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(wasmDir, name))
	require.NoError(tb, err)
	return b
}

// newHost starts the named test program; output goes to tb.Logf unless cfg
// says otherwise.
func newHost(tb testing.TB, name string, cfg Config) *Host {
	tb.Helper()
	if cfg.Stdout == nil {
		cfg.Stdout = LogWriter(tb.Logf)
	}
	if cfg.Stderr == nil {
		cfg.Stderr = LogWriter(tb.Logf)
	}
	h, err := New(context.Background(), program(tb, name), cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, h.Close()) })
	return h
}

func eval(tb testing.TB, h *Host, script string) any {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := h.Eval(ctx, script)
	require.NoError(tb, err)
	return v
}

// syncBuffer is written on the loop goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestEcho_virtualClock(t *testing.T) {
	h := newHost(t, "echo", Config{})
	v := eval(t, h, `
		const t0 = performance.now(), d0 = Date.now();
		const r = await echo("hi");
		return {value: r.value, slept: r.slept, perf: performance.now() - t0, date: Date.now() - d0};
	`).(map[string]any)
	// The program sleeps 24 hours: the test can only end because the clock is virtual.
	require.Equal(t, "hi", v["value"])
	require.GreaterOrEqual(t, toFloat(v["slept"]), 86400.0, "Go's own clock (nanotime) saw 24 h")
	require.GreaterOrEqual(t, toFloat(v["perf"]), 86400e3)
	require.GreaterOrEqual(t, toFloat(v["date"]), 86400e3)
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	panic(fmt.Sprintf("not a number: %#v", v))
}

func TestEval_concurrent(t *testing.T) {
	h := newHost(t, "echo", Config{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			v := eval(t, h, fmt.Sprintf(`return (await echo(%d)).value`, i))
			require.Equal(t, int64(i), v)
		})
	}
	wg.Wait()
}

func TestReenter(t *testing.T) {
	h := newHost(t, "reenter", Config{})
	want := "go0"
	for n := 1; n <= 8; n++ {
		want = fmt.Sprintf("go%d(js(%s))", n, want)
	}
	v := eval(t, h, `
		globalThis.jsDepth = (n) => "js(" + goDepth(n) + ")";
		return goDepth(8);
	`)
	require.Equal(t, want, v)
}

func TestPrint_inCallback(t *testing.T) {
	var stdout, stderr syncBuffer
	h := newHost(t, "print", Config{
		Stdout: &stdout,
		Stderr: &stderr,
		Args:   []string{"-v", "x y"},
		Env:    map[string]string{"GREETING": "hi"},
	})
	require.Equal(t, "printed", eval(t, h, `return printIt("hello")`))
	require.Equal(t, "main started\nstdout: hello\n", stdout.String())
	require.Equal(t, "stderr: hello\n", stderr.String())

	v := eval(t, h, `console.log("log", 1, {a: [1, "x"]}); console.error(new TypeError("bad")); return argsEnv()`)
	require.Equal(t, map[string]any{"args": []any{"js", "-v", "x y"}, "greeting": "hi"}, v)
	require.Contains(t, stdout.String(), `log 1 {a: [1, "x"]}`+"\n")
	require.Contains(t, stderr.String(), "TypeError: bad\n\tat ")
}

func TestDeadlock(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		stalled      bool // the Host detected it (else Go did)
	}{
		{"promise never resolved by Go", `return await waitForever()`, true},
		{"promise never resolved by JS", `return await new Promise(() => {})`, true},
		{"blocked inside a callback", `return blockInCallback()`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, "deadlock", Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := h.Eval(ctx, tc.script)
			require.Error(t, err)
			require.NotErrorIs(t, err, context.DeadlineExceeded)
			require.Equal(t, tc.stalled, errors.Is(err, ErrStalled), "%v", err)
			var exit *ExitError
			require.ErrorAs(t, err, &exit)
			require.Equal(t, 2, exit.Code)
			require.Contains(t, err.Error(), "all goroutines are asleep - deadlock!")
			code, done := h.Exited()
			require.True(t, done)
			require.Equal(t, 2, code)
		})
	}
}

func TestMemoryGrowth(t *testing.T) {
	h := newHost(t, "grow", Config{})
	memSize := func() (n uint32) {
		require.NoError(t, h.call(func() { n = h.mem.Size() }))
		return n
	}
	before := memSize()
	require.Equal(t, "dlröw olléh", eval(t, h, `return roundTrip("héllo wörld")`))
	require.Equal(t, int64(48<<20), eval(t, h, `grow(16); return grow(32)`))
	require.Greater(t, memSize(), before+48<<20)
	require.Equal(t, "dlröw olléh", eval(t, h, `return roundTrip("héllo wörld")`), "mem.buffer is valid after growth")
}

func TestPanic_inCallback(t *testing.T) {
	var stderr syncBuffer
	h := newHost(t, "panic", Config{Stderr: &stderr})
	require.Equal(t, "ok", eval(t, h, `return ok()`))
	_, err := h.Eval(context.Background(), `return boom()`)
	var exit *ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 2, exit.Code)
	require.Contains(t, exit.Output, "panic: boom from a callback")
	require.Contains(t, stderr.String(), "panic: boom from a callback")

	// The Host stays usable enough to say so, without hanging.
	_, err = h.Eval(context.Background(), `return ok()`)
	require.ErrorAs(t, err, &exit)
	code, done := h.Exited()
	require.Equal(t, 2, code)
	require.True(t, done)
}

func TestEval_errors(t *testing.T) {
	h := newHost(t, "echo", Config{})
	for _, tc := range []struct {
		name, script string
		want         string // error text prefix
		jsName       string
	}{
		{"throw", `throw new TypeError("nope")`, "jshost: TypeError: nope\n\tat ", "TypeError"},
		{"reject after a timer", `await new Promise(r => setTimeout(r, 1000)); ({}).x.y`, "jshost: TypeError: Cannot read property 'y' of undefined\n\tat eval:1:", "TypeError"},
		{"DOMException", `throw new DOMException("gone", "AbortError")`, "jshost: AbortError: gone\n", "AbortError"},
		{"non-Error value", `throw 42`, "jshost: uncaught 42", ""},
		{"syntax", `return (`, "jshost: Eval: ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Eval(context.Background(), tc.script)
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), tc.want), "got %q", err.Error())
			var js *JSError
			if errors.As(err, &js) {
				require.Equal(t, tc.jsName, js.Name)
			}
		})
	}
	require.Equal(t, int64(3), eval(t, h, `return 1 + 2`), "the Host survives script errors")
}

func TestEval_contextAndHold(t *testing.T) {
	h := newHost(t, "echo", Config{})

	// Work announced with Hold and answered from another goroutine in real time.
	release := h.Hold()
	go func() {
		time.Sleep(20 * time.Millisecond)
		h.Post(func(vm *goja.Runtime) {
			resolve, _ := goja.AssertFunction(vm.Get("resolveFromGo"))
			_, _ = resolve(goja.Undefined(), vm.ToValue("from Go"))
		})
		release()
	}()
	require.Equal(t, "from Go", eval(t, h, `return await new Promise(r => { globalThis.resolveFromGo = r; })`))

	// While a Hold is outstanding the loop never stalls: only ctx ends Eval.
	release = h.Hold()
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := h.Eval(ctx, `await new Promise(() => {})`)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	// While a Hold is outstanding, timers still fire: the virtual clock follows real time
	// (a script polls while a real request never answers).
	require.Equal(t, int64(3), eval(t, h, `
		let n = 0;
		while (n < 3) { await new Promise((r) => setTimeout(r, 5)); n++; }
		return n;`))

	// Close fails a pending Eval.
	errc := make(chan error, 1)
	go func() {
		_, err := h.Eval(context.Background(), `await new Promise(() => {})`)
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, h.Close())
	require.ErrorIs(t, <-errc, ErrClosed)
	_, err = h.Eval(context.Background(), `return 1`)
	require.ErrorIs(t, err, ErrClosed)
}

func TestSet(t *testing.T) {
	h := newHost(t, "echo", Config{})
	h.Set("double", func(x int) int { return 2 * x })
	h.Set("config", map[string]any{"name": "test"})
	require.Equal(t, "test:42", eval(t, h, `return config.name + ":" + double(21)`))
}

func TestTimers_virtualClock(t *testing.T) {
	h := newHost(t, "echo", Config{})
	v := eval(t, h, `
		const log = [];
		const t0 = performance.now();
		const at = (label) => log.push(label + "@" + (performance.now() - t0));
		setTimeout(() => at("c"), 3000);
		setTimeout(() => at("a"), 1000);
		setTimeout(() => at("b"), 1000);
		const gone = setTimeout(() => at("cleared"), 500);
		clearTimeout(gone);
		let n = 0;
		const iv = setInterval(() => { at("i"); if (++n === 2) clearInterval(iv); }, 1500);
		queueMicrotask(() => at("micro"));
		setTimeout((x, y) => at("args" + x + y), 0, 1, 2);
		await new Promise(r => setTimeout(r, 5000));
		return log.join(" ");
	`)
	require.Equal(t, "micro@0 args12@1 a@1000 b@1000 i@1500 c@3000 i@3000", v)
}

func TestTextCodec(t *testing.T) {
	h := newHost(t, "echo", Config{})
	v := eval(t, h, `
		const enc = new TextEncoder(), dec = new TextDecoder();
		const bytes = enc.encode("h€llo 😀");
		let streamed = "";
		const d = new TextDecoder();
		for (const b of bytes) streamed += d.decode(new Uint8Array([b]), {stream: true});
		streamed += d.decode();
		let fatal = "";
		try { new TextDecoder("utf-8", {fatal: true}).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.name; }
		const into = new Uint8Array(4);
		const r = enc.encodeInto("a€b", into);
		return [bytes.length, dec.decode(bytes), streamed, dec.decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x41, 0xff])),
			fatal, r.read, r.written, crypto.getRandomValues(new Uint8Array(8)).length, typeof crypto.randomUUID()];
	`)
	require.Equal(t, []any{int64(12), "h€llo 😀", "h€llo 😀", "A\uFFFD", "TypeError", int64(2), int64(4), int64(8), "string"}, v)
}

func TestReadableStream(t *testing.T) {
	h := newHost(t, "echo", Config{})
	for _, tc := range []struct {
		name, script string
		want         any
	}{
		{"for await over enqueued chunks", `
			const s = new ReadableStream({ start(c) { c.enqueue("a"); c.enqueue("b"); c.close(); } });
			const out = [];
			for await (const chunk of s) out.push(chunk);
			return out.join("") + ":" + s.locked;`, "ab:false"},
		{"pull on the virtual clock", `
			let i = 0;
			const s = new ReadableStream({
				async pull(c) {
					await new Promise(r => setTimeout(r, 1000));
					if (++i > 3) c.close(); else c.enqueue(i);
				},
			});
			const t0 = performance.now(), out = [];
			for await (const n of s) out.push(n);
			return out.join(",") + " in " + (performance.now() - t0) + " ms";`, "1,2,3 in 4000 ms"},
		{"error reaches read and for await", `
			const s = new ReadableStream({ start(c) { c.enqueue(1); c.error(new DOMException("bad", "NetworkError")); } });
			const r = s.getReader();
			let first;
			try { first = await r.read(); } catch (e) { first = e.name; }
			const s2 = new ReadableStream({ pull(c) { throw new RangeError("pull failed"); } });
			try { for await (const x of s2) {} } catch (e) { return [first, e.name + ": " + e.message]; }`,
			[]any{"NetworkError", "RangeError: pull failed"}},
		{"break cancels the source", `
			let reason = "not cancelled";
			const s = new ReadableStream({
				pull(c) { c.enqueue("x"); },
				cancel(why) { reason = "cancelled: " + why; },
			});
			let n = 0;
			for await (const x of s) { if (++n === 3) break; }
			return [n, reason, s.locked];`, []any{int64(3), "cancelled: undefined", false}},
		{"reader API", `
			const s = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); } }, { highWaterMark: 4 });
			const r = s.getReader();
			const a = await r.read();
			let locked = "";
			try { s.getReader(); } catch (e) { locked = e.name; }
			r.releaseLock();
			const r2 = s.getReader();
			const b = await r2.read();
			await r2.cancel("done");
			const c = await r2.read();
			return [a.value, locked, b.value, c.done];`, []any{int64(1), "TypeError", int64(2), true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, eval(t, h, tc.script))
		})
	}
}

func TestAbortSignal(t *testing.T) {
	h := newHost(t, "echo", Config{})
	v := eval(t, h, `
		const t0 = performance.now();
		const s = AbortSignal.timeout(86_400_000); // a day: only a virtual clock gets there
		await new Promise(r => s.addEventListener("abort", r));
		return [s.aborted, s.reason.name, s.reason instanceof DOMException, performance.now() - t0];
	`)
	require.Equal(t, []any{true, "TimeoutError", true, int64(86400000)}, v)

	v = eval(t, h, `
		const log = [];
		const c = new AbortController();
		c.signal.onabort = (e) => log.push("onabort:" + e.type);
		c.signal.addEventListener("abort", () => log.push("listener"));
		const any = AbortSignal.any([c.signal, AbortSignal.timeout(1e9)]);
		c.abort();
		c.abort("again");
		let thrown;
		try { c.signal.throwIfAborted(); } catch (e) { thrown = e; }
		const pre = AbortSignal.abort("why");
		let illegal = "";
		try { new AbortSignal(); } catch (e) { illegal = e.name; }
		return [log.join(","), c.signal.reason.name, c.signal.reason.message, thrown === c.signal.reason,
			any.aborted, any.reason === c.signal.reason, pre.aborted, pre.reason, illegal];
	`)
	require.Equal(t, []any{"onabort:abort,listener", "AbortError", "signal is aborted without reason", true,
		true, true, true, "why", "TypeError"}, v)
}

func TestDOMException(t *testing.T) {
	h := newHost(t, "echo", Config{})
	for _, tc := range []struct {
		name string
		code int64
	}{
		{"AbortError", 20}, {"TimeoutError", 23}, {"QuotaExceededError", 22}, {"NotSupportedError", 9},
		{"InvalidStateError", 11}, {"SyntaxError", 12}, {"NetworkError", 19}, {"DataCloneError", 25},
		{"NotAllowedError", 0}, {"OperationError", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := eval(t, h, fmt.Sprintf(`
				const e = new DOMException("msg", %q);
				return [e.name, e.message, e.code, e instanceof Error, e instanceof DOMException,
					String(e), typeof e.stack, Object.keys(e).length];`, tc.name))
			require.Equal(t, []any{tc.name, "msg", tc.code, true, true, tc.name + ": msg", "string", int64(0)}, v)
		})
	}
	require.Equal(t, []any{"Error", "", int64(0), int64(20)},
		eval(t, h, `const e = new DOMException(); return [e.name, e.message, e.code, DOMException.ABORT_ERR]`))
}

func TestEventTarget(t *testing.T) {
	var stderr syncBuffer
	h := newHost(t, "echo", Config{Stderr: &stderr})
	v := eval(t, h, `
		const log = [];
		const t = new EventTarget();
		const a = (e) => log.push("a:" + e.type + ":" + (e.target === t) + ":" + e.eventPhase);
		t.addEventListener("ping", a);
		t.addEventListener("ping", a); // duplicate, ignored
		t.addEventListener("ping", { handleEvent(e) { log.push("object"); } });
		t.addEventListener("ping", () => { log.push("once"); }, { once: true });
		t.addEventListener("ping", () => { throw new Error("listener failed"); });
		t.addEventListener("ping", function (e) { log.push("this:" + (this === t)); e.preventDefault(); });
		const c = new AbortController();
		t.addEventListener("ping", () => log.push("removed by signal"), { signal: c.signal });
		c.abort();
		const first = t.dispatchEvent(new Event("ping", { cancelable: true }));
		log.push("|");
		t.removeEventListener("ping", a);
		t.addEventListener("ping", (e) => { log.push("stop"); e.stopImmediatePropagation(); });
		t.addEventListener("ping", () => log.push("never"));
		const second = t.dispatchEvent(new CustomEvent("ping", { detail: 7 }));
		const p = new ProgressEvent("progress", { lengthComputable: true, loaded: 5, total: 10 });
		return [log.join(" "), first, second, p instanceof Event, p.loaded + "/" + p.total];
	`)
	require.Equal(t, []any{"a:ping:true:2 object once this:true | object this:true stop", false, true, true, "5/10"}, v)
	require.Contains(t, stderr.String(), "Uncaught Error: listener failed")
}

func TestLoadModule(t *testing.T) {
	h := newHost(t, "echo", Config{})
	ns, err := h.LoadModule("testdata/esm/main.js")
	require.NoError(t, err)
	again, err := h.LoadModule("./testdata/esm/../esm/main.js")
	require.NoError(t, err)
	require.Same(t, ns.(*goja.Object), again.(*goja.Object), "modules are cached by path")
	h.Set("m", ns)
	v := eval(t, h, `
		return {
			keys: Object.keys(m).sort().join(","),
			greeting: m.greeting, sum: m.sum, first: m.first, others: m.others, star: m.fromStar,
			answer: m.answer, doubled: m.doubled, renamed: m.utilNS.renamed, left: m.utilNS.left, tag: Object.prototype.toString.call(m),
			run: await m.run(), counter: m.utilNS.counter, default: typeof m.default,
		};
	`)
	require.Equal(t, map[string]any{
		"keys":     "answer,default,doubled,first,fromStar,greeting,others,run,sum,utilNS",
		"greeting": "hello, esm", "sum": int64(43), "first": int64(1), "others": []any{int64(2), int64(3)},
		"star": "star", "answer": int64(42), "doubled": []any{int64(2), int64(4)}, "renamed": "h", "left": "L", "tag": "[object Module]",
		"run":     map[string]any{"counter": int64(2), "later": "ab", "isGreeter": true},
		"counter": int64(2), "default": "function",
	}, v)
}

func TestLoadModule_errors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	write("cycle-a.js", `import { b } from "./cycle-b.js"; export const a = 1;`)
	write("cycle-b.js", `import { a } from "./cycle-a.js"; export const b = 2;`)
	write("lib.js", `export const x = 1;`)
	h := newHost(t, "echo", Config{})
	for _, tc := range []struct {
		name, src, want string
	}{
		{"import dot other", "const x = 1;\nexport const u = import.target;", "line 2: import.target is not supported"},
		{"top-level await", "await 1;", "line 1: top-level await is not supported"},
		{"top-level for await", "const s = [];\nfor await (const x of s) {}", "line 2: top-level await is not supported"},
		{"bare specifier", `import x from "lodash";`, `line 1: module specifier "lodash": only relative (./, ../) and absolute paths are supported`},
		{"attributes", `import x from "./lib.js" with { type: "json" };`, "line 1: import attributes (`with { … }`) are not supported"},
		{"string export name", `const a = 1; export { a as "b c" };`, `line 1: export { … as … }: expected a name, found "\"b c\""`},
		{"unsupported export", `export = 1;`, "line 1: unsupported export form `export =`"},
		{"duplicate export", "export const a = 1;\nconst b = 2;\nexport { b as a };", `line 3: duplicate export "a"`},
		{"missing file", `import "./nope.js";`, "no such file or directory"},
		{"missing export", `import { y } from "./lib.js";`, "SyntaxError: The requested module './lib.js' does not provide an export named 'y'"},
		{"cycle", `import "./cycle-a.js";`, "jshost: import cycle: "},
		{"syntax error", "export const a = ;", "Unexpected token"},
		{"async generator", "export async function* g() {}", "Async generators are not supported"},
		{"throws while running", `throw new RangeError("at load");`, "RangeError: at load"},
		{"lines kept", "import { x } from \"./lib.js\";\nexport {\n  x };\nthrow new Error(x);", "lines-kept.js:4:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(strings.ReplaceAll(tc.name, " ", "-")+".js", tc.src)
			_, err := h.LoadModule(path)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestLoadModule_dynamic: import(…) loads a module when called, relative to the
// importing file, by path or file: URL; import.meta.url is the module's file: URL.
func TestLoadModule_dynamic(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	write("lib.js", "export const x = 1;\nexport const url = import.meta.url;")
	write("throws.js", `throw new RangeError("at load");`)
	write("main.js", `export const url = import.meta.url;
export const same = import.meta === import.meta;
export async function load(spec) {
  try { const m = await import(spec); return "x=" + m.x + " " + m.url.slice(m.url.lastIndexOf("/")); }
  catch (e) { return e.name + ": " + e.message.split("\n")[0].replace(/\/\S*\//g, "…/"); }
}`)
	h := newHost(t, "echo", Config{})
	ns, err := h.LoadModule(filepath.Join(dir, "main.js"))
	require.NoError(t, err)
	h.Set("m", ns)
	v := eval(t, h, `return [m.url.startsWith("file:///") && m.url.endsWith("/main.js"), m.same,
		await m.load("./lib.js"), await m.load(m.url.replace(/main\.js$/, "lib.js")), await m.load("./nope.js"), await m.load("./throws.js"), await m.load("lodash")];`)
	require.Equal(t, []any{true, true, "x=1 /lib.js", "x=1 /lib.js",
		"Error: jshost: module open …/nope.js: no such file or directory",
		"Error: jshost: module …/throws.js: jshost: RangeError: at load",
		`TypeError: jshost: import("lodash"): only relative (./, ../) and absolute paths and file: URLs are supported`}, v)
}

func TestDesugarForAwait(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no await", "for (const x of y) {}", "for (const x of y) {}"},
		{"in a string", `const s = "for await (x of y) {}"; await z;`, `const s = "for await (x of y) {}"; await z;`},
		{"in comments, regexps, templates", "const r = /'\"`[/]/g; // for await (x of y) {}\nconst t = `${`for await (a of b) {}`}`; /* for await (c of d) {} */ await r;",
			"const r = /'\"`[/]/g; // for await (x of y) {}\nconst t = `${`for await (a of b) {}`}`; /* for await (c of d) {} */ await r;"},
		{"basic", "for await (const x of s) { f(x) }",
			`{const $jsIt1=__jshostAsyncIterator( s);let $jsOpen1=false;try{for(;;){$jsOpen1=false;const $jsR1=await $jsIt1.next();if($jsR1.done)break;$jsOpen1=true;const x =$jsR1.value;{ f(x) }}}finally{if($jsOpen1&&typeof $jsIt1.return==="function")await $jsIt1.return()}}`},
		{"simple statement, nested, lines kept", "for await (const a of s)\n  for await (const b of a) f(\n a, b);\nnext();",
			`{const $jsIt2=__jshostAsyncIterator( s);let $jsOpen2=false;try{for(;;){$jsOpen2=false;const $jsR2=await $jsIt2.next();if($jsR2.done)break;$jsOpen2=true;const a =$jsR2.value;{{const $jsIt1=__jshostAsyncIterator( a);let $jsOpen1=false;try{for(;;){$jsOpen1=false;const $jsR1=await $jsIt1.next();if($jsR1.done)break;$jsOpen1=true;const b =$jsR1.value;{f(` + "\n" + ` a, b);}}}finally{if($jsOpen1&&typeof $jsIt1.return==="function")await $jsIt1.return()}}}}}finally{if($jsOpen2&&typeof $jsIt2.return==="function")await $jsIt2.return()}}` + "\nnext();"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := desugarForAwait(tc.src)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	for _, tc := range []struct{ src, want string }{
		{"for await (const x of s) if (x) f(x);", "line 1: for await: jshost needs the loop body to be a block { … }, or a simple statement ending in ';'"},
		{"\nfor await (const x in s) {}", "line 2: for await: only `for await (x of y)` is supported"},
		{"await `unterminated", "line 1: unterminated template literal"},
	} {
		_, err := desugarForAwait(tc.src)
		require.EqualError(t, err, tc.want)
	}
}

// BenchmarkCompile measures what the compilation cache saves: compiling the module with a
// fresh cache (cold) against compiling it again with a filled one (cached).
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	wasm := program(b, "echo")
	compile := func(cache wazero.CompilationCache) {
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
		defer rt.Close(ctx)
		if _, err := rt.CompileModule(ctx, wasm); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			compile(wazero.NewCompilationCache())
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := wazero.NewCompilationCache()
		compile(cache)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			compile(cache)
		}
	})
}

// BenchmarkNew measures New with the shared cache warm: instantiation until main's
// select{}, then Close.
func BenchmarkNew(b *testing.B) {
	ctx := context.Background()
	wasm := program(b, "echo")
	for i := 0; i < b.N; i++ {
		h, err := New(ctx, wasm, Config{Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalRoundTrip(b *testing.B) {
	h := newHost(b, "echo", Config{})
	ctx := context.Background()
	// Go test → loop → JS → Go (wasm) → JS → Go test.
	b.Run("Eval", func(b *testing.B) {
		for b.Loop() {
			v, err := h.Eval(ctx, `return add(1, 2)`)
			if err != nil || v != int64(3) {
				b.Fatal(v, err)
			}
		}
	})
	// JS → Go → JS alone: b.N calls inside one Eval.
	b.Run("JSCall", func(b *testing.B) {
		v, err := h.Eval(ctx, fmt.Sprintf(`let s = 0; for (let i = 0; i < %d; i++) s = add(s, 1); return s`, b.N))
		if err != nil || v != int64(b.N) {
			b.Fatal(v, err)
		}
	})
}
