// Package jshost runs a real GOOS=js GOARCH=wasm module headless inside go test,
// with no browser and no Node. It is the wazero test layer of DESIGN.md §2: the
// real .wasm, loaded by Go's own, unmodified $(go env GOROOT)/lib/wasm/wasm_exec.js
// (read at run time, never copied into the repository), with wazero executing the
// wasm and goja executing the JavaScript.
//
//	h, err := jshost.New(ctx, wasmBytes, jshost.Config{Stderr: jshost.LogWriter(t.Logf)})
//	defer h.Close()
//	v, err := h.Eval(ctx, `return await echo("hi")`)
//
// The Host registers one wazero host function per "gojs" import the module
// declares, each calling go.importObject.gojs[name](sp) in the VM, and gives
// wasm_exec.js an object that passes for a WebAssembly.Instance (exports run,
// resume, getsp and mem, and the module's own //go:wasmexport functions); the Go
// instance is the global go. shims.js adds the browser globals goja lacks:
// TextEncoder/TextDecoder, crypto.getRandomValues (seeded, deterministic),
// performance, console, queueMicrotask, structuredClone, EventTarget, Event,
// CustomEvent, ProgressEvent, DOMException, AbortController/AbortSignal and
// ReadableStream. fetch is left to tests.
//
// # Event loop and virtual clock
//
// One goroutine owns the VM and the module (loop.go): it runs posted tasks in
// order, then due timers, and drains promise jobs after each. The clock is
// virtual: performance.now() starts at 1000, Date at 2026-01-01T00:00:00Z, and
// it moves only while an Eval waits and nothing can run, by jumping to the next
// timer. A Go time.Sleep(10*time.Second) or a JS setTimeout of ten seconds takes
// no wall time and always interleaves the same way. When an Eval waits and there
// is no task, no timer and no Hold, nothing can ever happen: the Host then does
// what Node does when its loop empties (go._pendingEvent = {id: 0}; resume), so
// Go reports "all goroutines are asleep - deadlock!", and Eval returns an error
// wrapping ErrStalled. Test code that answers from another goroutine (a fake
// fetch served by a Go test server) calls Hold before it starts and Post with the
// answer; while a Hold is outstanding the loop waits in real time.
//
// # Pitfalls handled
//
//   - wazero's compiler engine, never the interpreter (2,000-frame limit, ~40×
//     slower), with one compilation cache for every Host in the process, and
//     without WithCloseOnContextDone (see runtimeConfig).
//   - A wazero api.Function is never re-entered from inside its own host call
//     (that crashes the compiler engine): exports are called through one handle
//     per nesting depth, created with Module.ExportedFunction as depth grows.
//   - mem.buffer is an ArrayBuffer over wazero's memory, made anew (and the old
//     one detached) whenever the backing slice moved or grew.
//   - The stack pointer is re-read through getsp after calls that can run Go
//     (wasm_exec.js does this, given a getsp that is right at every depth).
//   - nanotime never returns 0 (the virtual clock starts at one second).
//   - fs.write completes synchronously, so fmt.Println inside a js.FuncOf
//     callback does not deadlock; fs.constants.O_* are numbers; stdout and
//     stderr go to the Config's writers.
//   - process (made by wasm_exec.js, as in a browser), Object, Array,
//     Uint8Array and Date exist; Date, performance.now and so Go's nanotime and
//     walltime read the virtual clock.
//   - A Go exit with a non-zero code (a panic in a callback, a deadlock) fails
//     the pending Evals at once with an *ExitError carrying Go's stderr.
//   - The VM is touched only on the loop goroutine; Set, Post, Eval and
//     LoadModule hand work to it.
//
// goja lacks async generators and `for await`. Scripts given to Eval and
// modules loaded with LoadModule get `for await (… of …) { … }` rewritten into
// plain awaits on Symbol.asyncIterator (which the shims define); async
// generators (async function*) stay unsupported and fail to compile.
package jshost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/dop251/goja"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Config configures a Host. The zero value is ready to use.
type Config struct {
	// Stdout and Stderr receive what the Go program writes to fd 1 and 2 (and
	// what console.log and console.error print). nil means os.Stderr; see
	// LogWriter for sending them to t.Logf.
	Stdout, Stderr io.Writer
	// Env is the Go program's environment.
	Env map[string]string
	// Args are the Go program's arguments after os.Args[0], which is "js".
	Args []string
}

// Host runs one Go wasm module with its JavaScript world. Its methods are safe
// for concurrent use; Close releases it.
type Host struct {
	stdout, stderr io.Writer

	rt  wazero.Runtime
	mod api.Module
	mem api.Memory
	vm  *goja.Runtime

	// Loop goroutine only.
	goObj     *goja.Object    // the wasm_exec.js Go instance
	imports   []goja.Callable // go.importObject.gojs[name], by host function
	exports   map[string][]*exportFn
	depth     int // wasm calls in progress
	memBytes  []byte
	memAB     goja.Value
	memBuf    goja.ArrayBuffer
	thrown    error // a JS exception on its way through wasm frames
	crashed   error // the module trapped; it cannot run again
	errorCtor *goja.Object
	rng       *rand.Rand
	now       int64 // virtual clock, ns
	timers    timerHeap
	timerByID map[int64]*timer
	timerSeq  uint64
	nextTimer int64
	waits     map[*wait]struct{}
	rejected  []*goja.Promise
	errOut    []byte // stderr since the oldest pending wait began, capped
	modules   map[string]*module
	modHelper *goja.Object

	// Shared with other goroutines, under mu.
	mu     sync.Mutex
	tasks  []func()
	holds  int
	closed bool
	exited bool
	code   int

	wake      chan struct{}
	done      chan struct{} // closed when the loop goroutine ends
	closeOnce sync.Once
	closeErr  error
}

type exportFn struct {
	fn    api.Function
	stack []uint64
}

// wait is an Eval waiting for its promise.
type wait struct {
	done    chan struct{}
	val     any
	err     error
	stalled bool
}

// compilationCache is shared by every Host in the process: the first compile
// of a module takes ~0.5 s per 2 MB, the next ones a few tens of ms.
//
// WithCloseOnContextDone stays off: it would let Close stop a Go program that
// spins without ever calling JS, but it costs a goroutine per export call and
// checks in every loop, which made one JS→Go call take ~115 µs instead of ~13
// µs of wasm time. Close gives up waiting on such a program instead (closeWait).
var (
	compilationCache = wazero.NewCompilationCache()
	runtimeConfig    = wazero.NewRuntimeConfigCompiler().WithCompilationCache(compilationCache)
)

// closeWait is how long Close waits for a task that is still running (JS or
// wasm stuck in a loop) before leaving it behind.
const closeWait = 5 * time.Second

// wasmExecProgram is $(go env GOROOT)/lib/wasm/wasm_exec.js, compiled once.
var wasmExecProgram = sync.OnceValues(func() (*goja.Program, error) {
	root := ""
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	if root == "" {
		//lint:ignore SA1019 the fallback when no go command is on PATH
		root = runtime.GOROOT()
	}
	path := filepath.Join(root, "lib", "wasm", "wasm_exec.js")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("jshost: wasm_exec.js: %w", err)
	}
	return goja.Compile(path, string(src), false)
})

// New compiles wasm (through the shared cache), sets up the VM with
// wasm_exec.js and the shims, starts the Go program (go.run) and returns once
// main has reached its first blocking point, typically select{}. ctx bounds
// this start only; the Host lives until Close. If the program exits with a
// non-zero code during the start, New returns an *ExitError.
func New(ctx context.Context, wasm []byte, cfg Config) (*Host, error) {
	execProg, err := wasmExecProgram()
	if err != nil {
		return nil, err
	}
	h := &Host{
		stdout:  cfg.Stdout,
		stderr:  cfg.Stderr,
		exports: map[string][]*exportFn{},
		waits:   map[*wait]struct{}{},
		modules: map[string]*module{},
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if h.stdout == nil {
		h.stdout = os.Stderr
	}
	if h.stderr == nil {
		h.stderr = os.Stderr
	}
	h.rt = wazero.NewRuntimeWithConfig(ctx, runtimeConfig)
	if err := h.setup(ctx, wasm, execProg, cfg); err != nil {
		_ = h.rt.Close(context.Background())
		return nil, err
	}
	go h.run()

	started := make(chan error, 1)
	h.post(func() { started <- h.start() })
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		_ = h.Close()
		return nil, err
	}
	return h, nil
}

func (h *Host) setup(ctx context.Context, wasm []byte, execProg *goja.Program, cfg Config) error {
	compiled, err := h.rt.CompileModule(ctx, wasm)
	if err != nil {
		return fmt.Errorf("jshost: compile: %w", err)
	}
	h.vm = goja.New()
	vm := h.vm
	h.errorCtor = vm.Get("Error").ToObject(vm)
	if err := h.installShims(); err != nil {
		return err
	}
	if _, err := vm.RunProgram(execProg); err != nil {
		return fmt.Errorf("jshost: wasm_exec.js: %w", err)
	}
	h.goObj, err = vm.New(vm.Get("Go"))
	if err != nil {
		return fmt.Errorf("jshost: new Go(): %w", err)
	}
	argv := []any{"js"}
	for _, a := range cfg.Args {
		argv = append(argv, a)
	}
	env := vm.NewObject()
	for k, v := range cfg.Env {
		_ = env.Set(k, v)
	}
	_ = h.goObj.Set("argv", vm.NewArray(argv...))
	_ = h.goObj.Set("env", env)
	_ = h.goObj.Set("exit", func(c goja.FunctionCall) goja.Value {
		h.onExit(int(c.Argument(0).ToInteger()))
		return goja.Undefined()
	})

	gojs := h.goObj.Get("importObject").ToObject(vm).Get("gojs").ToObject(vm)
	builder := h.rt.NewHostModuleBuilder("gojs")
	for _, def := range compiled.ImportedFunctions() {
		module, name, _ := def.Import()
		if module != "gojs" {
			return fmt.Errorf("jshost: the module imports %s.%s; only gojs imports (GOOS=js) are supported", module, name)
		}
		fn, ok := goja.AssertFunction(gojs.Get(name))
		if !ok {
			return fmt.Errorf("jshost: the module imports gojs.%s, which this wasm_exec.js does not provide (built by another Go version?)", name)
		}
		if len(def.ResultTypes()) != 0 {
			return fmt.Errorf("jshost: gojs.%s returns results; GOOS=js imports return through memory", name)
		}
		i := len(h.imports)
		h.imports = append(h.imports, fn)
		builder.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
				h.callImport(i, stack)
			}), def.ParamTypes(), nil).
			Export(name)
	}
	if _, err := builder.Instantiate(ctx); err != nil {
		return fmt.Errorf("jshost: gojs host module: %w", err)
	}
	h.mod, err = h.rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("go").WithStartFunctions())
	if err != nil {
		return fmt.Errorf("jshost: instantiate: %w", err)
	}
	if h.mem = h.mod.Memory(); h.mem == nil {
		return errors.New("jshost: the module exports no memory")
	}
	for _, name := range []string{"run", "resume", "getsp"} {
		if h.mod.ExportedFunction(name) == nil {
			return fmt.Errorf("jshost: the module exports no %q; is it a GOOS=js GOARCH=wasm program?", name)
		}
	}
	return nil
}

// start calls go.run(instance) on the loop; Go's main runs until it blocks.
func (h *Host) start() error {
	vm := h.vm
	proto := vm.Get("WebAssembly").ToObject(vm).Get("Instance").ToObject(vm).Get("prototype").ToObject(vm)
	inst := vm.CreateObject(proto)
	exp := vm.NewObject()
	_ = exp.Set("run", func(c goja.FunctionCall) goja.Value {
		h.wasmCall("run", uint64(uint32(c.Argument(0).ToInteger())), uint64(uint32(c.Argument(1).ToInteger())))
		return goja.Undefined()
	})
	_ = exp.Set("resume", func(goja.FunctionCall) goja.Value {
		h.wasmCall("resume", 0, 0)
		return goja.Undefined()
	})
	_ = exp.Set("getsp", func(goja.FunctionCall) goja.Value {
		return vm.ToValue(int32(uint32(h.wasmCall("getsp", 0, 0))))
	})
	// The module's own exports (//go:wasmexport), as a browser gives them: i32 and i64
	// parameters from numbers, an i32 result as a signed number (pointers above 2 GiB
	// come out negative, as in browsers).
	for name, def := range h.mod.ExportedFunctionDefinitions() {
		if name == "run" || name == "resume" || name == "getsp" {
			continue
		}
		params, results := def.ParamTypes(), def.ResultTypes()
		if len(params) > 2 || len(results) > 1 || slices.ContainsFunc(append(params, results...), func(t api.ValueType) bool {
			return t != api.ValueTypeI32 && t != api.ValueTypeI64
		}) {
			continue // not callable from here; nothing the project exports
		}
		_ = exp.Set(name, func(c goja.FunctionCall) goja.Value {
			var a [2]uint64
			for i := range params {
				a[i] = uint64(c.Argument(i).ToInteger())
			}
			r := h.wasmCall(name, a[0], a[1])
			switch {
			case len(results) == 0:
				return goja.Undefined()
			case results[0] == api.ValueTypeI32:
				return vm.ToValue(int32(uint32(r)))
			default:
				return vm.ToValue(int64(r))
			}
		})
	}
	mem := vm.NewObject()
	getter := vm.ToValue(func(goja.FunctionCall) goja.Value { return h.memBuffer() })
	if err := mem.DefineAccessorProperty("buffer", getter, nil, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return err
	}
	_ = exp.Set("mem", mem)
	if err := inst.DefineDataProperty("exports", exp, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return err
	}

	// The Go instance is the global go, as in Go's own wasm_exec.html, so that code in the
	// VM can reach it (a page that starts a module itself has it at hand).
	_ = vm.Set("go", h.goObj)
	run, _ := goja.AssertFunction(h.goObj.Get("run"))
	v, err := run(h.goObj, inst)
	if err != nil {
		return h.asError(err)
	}
	if p, ok := v.Export().(*goja.Promise); ok && p.State() == goja.PromiseStateRejected {
		return h.jsError(p.Result())
	}
	h.mu.Lock()
	exited, code := h.exited, h.code
	h.mu.Unlock()
	if exited && code != 0 {
		return &ExitError{Code: code, Output: string(h.errOut)}
	}
	return nil
}

// wasmCall calls an export through the handle for the current nesting depth:
// re-entering one api.Function from inside its own host call breaks wazero's
// compiler engine.
func (h *Host) wasmCall(name string, a0, a1 uint64) uint64 {
	if h.crashed != nil {
		panic(h.vm.NewGoError(h.crashed))
	}
	fns := h.exports[name]
	for len(fns) <= h.depth {
		fns = append(fns, &exportFn{fn: h.mod.ExportedFunction(name), stack: make([]uint64, 2)})
		h.exports[name] = fns
	}
	e := fns[h.depth]
	e.stack[0], e.stack[1] = a0, a1
	h.depth++
	err := e.fn.CallWithStack(context.Background(), e.stack)
	h.depth--
	if err != nil {
		thrown := h.thrown
		h.thrown = nil
		h.crashed = fmt.Errorf("jshost: wasm %s: %w", name, err)
		if thrown != nil {
			// The JS exception that crossed the wasm frames, intact.
			panic(thrown)
		}
		panic(h.vm.NewGoError(h.crashed))
	}
	return e.stack[0]
}

// callImport is the body of every gojs host function.
func (h *Host) callImport(i int, stack []uint64) {
	_, err := h.imports[i](goja.Undefined(), h.vm.ToValue(uint32(stack[0])))
	if err == nil {
		return
	}
	h.mu.Lock()
	exited := h.exited
	h.mu.Unlock()
	if exited {
		// wasmExit has run and wasm_exec.js dropped its state; Go unwinds.
		return
	}
	h.thrown = err
	panic(err)
}

// memBuffer is the getter of exports.mem.buffer.
func (h *Host) memBuffer() goja.Value {
	b, _ := h.mem.Read(0, h.mem.Size())
	if h.memAB == nil || unsafe.SliceData(b) != unsafe.SliceData(h.memBytes) || len(b) != len(h.memBytes) {
		if h.memAB != nil {
			// Views of the old buffer would read stale bytes; make them throw.
			h.memBuf.Detach()
		}
		h.memBytes = b[:len(b):len(b)]
		h.memBuf = h.vm.NewArrayBuffer(h.memBytes)
		h.memAB = h.vm.ToValue(h.memBuf)
	}
	return h.memAB
}

// onExit is go.exit: the program called os.Exit, returned from main, or died.
func (h *Host) onExit(code int) {
	h.mu.Lock()
	h.exited, h.code = true, code
	h.mu.Unlock()
	if code != 0 {
		err := &ExitError{Code: code, Output: string(h.errOut)}
		for w := range h.waits {
			h.settle(w, nil, err)
		}
	}
}

// stall runs when an Eval waits and nothing can ever happen.
func (h *Host) stall() {
	for w := range h.waits {
		w.stalled = true
	}
	h.mu.Lock()
	exited := h.exited
	h.mu.Unlock()
	if !exited && h.crashed == nil {
		// What Node's wasm_exec_node.js does when its event loop empties.
		_ = h.goObj.Set("_pendingEvent", map[string]any{"id": 0})
		if resume, ok := goja.AssertFunction(h.goObj.Get("_resume")); ok {
			if _, err := resume(h.goObj); err != nil {
				h.uncaught(err)
			}
		}
	}
	h.mu.Lock()
	exited, code := h.exited, h.code
	h.mu.Unlock()
	for w := range h.waits {
		var err error = ErrStalled
		if exited {
			err = fmt.Errorf("%w; %w", ErrStalled, &ExitError{Code: code, Output: string(h.errOut)})
		}
		h.settle(w, nil, err)
	}
}

// settle finishes w once; later calls do nothing.
func (h *Host) settle(w *wait, val any, err error) {
	if _, ok := h.waits[w]; !ok {
		return
	}
	delete(h.waits, w)
	if w.stalled && err != nil && !errors.Is(err, ErrStalled) {
		err = fmt.Errorf("%w; %w", ErrStalled, err)
	}
	w.val, w.err = val, err
	close(w.done)
}

// evalCache holds compiled Eval scripts; goja programs are not tied to a VM.
var evalCache struct {
	sync.Mutex
	m map[string]*goja.Program
}

func compileEval(script string) (*goja.Program, error) {
	evalCache.Lock()
	prog := evalCache.m[script]
	evalCache.Unlock()
	if prog != nil {
		return prog, nil
	}
	src, err := desugarForAwait(script)
	if err != nil {
		return nil, fmt.Errorf("jshost: Eval: %w", err)
	}
	// One line of wrapper, so line numbers in stacks match the script's.
	prog, err = goja.Compile("eval", "(async () => {"+src+"\n})()", false)
	if err != nil {
		return nil, fmt.Errorf("jshost: Eval: %w", err)
	}
	evalCache.Lock()
	if evalCache.m == nil || len(evalCache.m) > 1024 {
		evalCache.m = map[string]*goja.Program{}
	}
	evalCache.m[script] = prog
	evalCache.Unlock()
	return prog, nil
}

// Eval runs script as the body of an async function on the loop (so it may
// use await and return), drives the loop until the promise it returns
// settles, and returns the value exported to Go (goja's Export: undefined is
// nil, numbers int64 or float64, objects map[string]any, arrays []any). A
// rejection or exception comes back as a *JSError with the JS name, message
// and stack. If the Go program exits with a non-zero code meanwhile, Eval
// returns an *ExitError; if the loop stalls, an error wrapping ErrStalled.
// When ctx ends first, Eval returns ctx.Err() and the script runs on.
//
// Declarations in script are local to it; share state between Evals through
// globalThis. Eval may be called many times, and from several goroutines.
func (h *Host) Eval(ctx context.Context, script string) (any, error) {
	prog, err := compileEval(script)
	if err != nil {
		return nil, err
	}
	w := &wait{done: make(chan struct{})}
	if !h.post(func() { h.startEval(prog, w) }) {
		return nil, ErrClosed
	}
	select {
	case <-w.done:
		return w.val, w.err
	case <-ctx.Done():
		h.post(func() { h.settle(w, nil, ctx.Err()) })
		return nil, ctx.Err()
	case <-h.done:
		select {
		case <-w.done:
			return w.val, w.err
		default:
			return nil, ErrClosed
		}
	}
}

func (h *Host) startEval(prog *goja.Program, w *wait) {
	if len(h.waits) == 0 {
		h.errOut = h.errOut[:0]
	}
	// Registered before the script runs, so an exit during it fails the Eval.
	h.waits[w] = struct{}{}
	h.mu.Lock()
	exited, code := h.exited, h.code
	h.mu.Unlock()
	if exited && code != 0 {
		h.settle(w, nil, &ExitError{Code: code, Output: "the program had already exited"})
		return
	}
	v, err := h.vm.RunProgram(prog)
	if err != nil {
		h.settle(w, nil, h.asError(err))
		return
	}
	then, _ := goja.AssertFunction(v.ToObject(h.vm).Get("then"))
	onOK := func(c goja.FunctionCall) goja.Value {
		h.settle(w, c.Argument(0).Export(), nil)
		return goja.Undefined()
	}
	onErr := func(c goja.FunctionCall) goja.Value {
		h.settle(w, nil, h.jsError(c.Argument(0)))
		return goja.Undefined()
	}
	if _, err := then(v, h.vm.ToValue(onOK), h.vm.ToValue(onErr)); err != nil {
		h.settle(w, nil, h.asError(err))
	}
}

// Set defines the global name as value (converted by goja's ToValue), on the
// loop, before returning. Go functions in value run on the loop when called.
func (h *Host) Set(name string, value any) {
	_ = h.call(func() { _ = h.vm.Set(name, value) })
}

// Post queues fn to run on the loop as a task; it may be called from any
// goroutine, and does nothing after Close. fn may resolve promises, call JS
// functions, or run scripts with vm; promise jobs run when it returns.
func (h *Host) Post(fn func(vm *goja.Runtime)) {
	h.post(func() { fn(h.vm) })
}

// Hold announces work from outside the loop, such as a reply a Go goroutine is
// preparing: until release is called, an idle loop waits in real time instead
// of stalling. Post the work before calling release. release may be called
// more than once.
func (h *Host) Hold() (release func()) {
	h.mu.Lock()
	h.holds++
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.holds--
			h.mu.Unlock()
			h.wakeUp()
		})
	}
}

// MemorySize is the size of the module's linear memory in bytes (it never shrinks). Call
// it on the loop (from a function the host's JS calls), where the module does not run.
func (h *Host) MemorySize() uint32 { return h.mem.Size() }

// Exited reports whether the Go program has exited, and its exit code.
func (h *Host) Exited() (code int, done bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.code, h.exited
}

// Close stops the loop (interrupting running JS), fails pending calls with
// ErrClosed, and releases the wazero runtime. A Go program spinning inside
// wasm without calling JS cannot be interrupted: after closeWait Close returns
// an error and leaves it running.
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		h.closed = true
		h.tasks = nil
		h.mu.Unlock()
		h.wakeUp()
		h.vm.Interrupt(ErrClosed)
		select {
		case <-h.done:
			h.closeErr = h.rt.Close(context.Background())
		case <-time.After(closeWait):
			h.closeErr = errors.New("jshost: Close: the loop is still busy (JS or wasm in an endless loop); left running")
		}
	})
	return h.closeErr
}
