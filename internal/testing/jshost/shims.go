package jshost

// The Go half of the browser shims (shims.js): output, UTF-8, randomness and
// the clock, which are faster or only possible in Go.

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dop251/goja"
)

//go:embed shims.js
var shimsSource string

var shimsProgram = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("jshost:shims.js", shimsSource, true)
})

// maxErrOut bounds how much stderr an ExitError keeps.
const maxErrOut = 4 << 10

func (h *Host) installShims() error {
	prog, err := shimsProgram()
	if err != nil {
		return fmt.Errorf("jshost: shims.js: %w", err)
	}
	vm := h.vm
	h.rng = rand.New(rand.NewPCG(1, 2))
	vm.SetRandSource(h.rng.Float64)
	h.installTimers()
	vm.SetPromiseRejectionTracker(h.trackRejection)

	n := vm.NewObject()
	set := func(name string, v any) { _ = n.Set(name, v) }
	set("write", func(c goja.FunctionCall) goja.Value {
		fd := c.Argument(0).ToInteger()
		var p []byte
		if s, ok := c.Argument(1).Export().(string); ok {
			p = []byte(s)
		} else {
			p = h.bytesOf(c.Argument(1))
		}
		if err := h.writeFD(fd, p); err != nil {
			e := vm.NewGoError(err)
			code := "EIO"
			if fd != 1 && fd != 2 {
				code = "EBADF"
			}
			_ = e.Set("code", code)
			panic(e)
		}
		return vm.ToValue(len(p))
	})
	set("encode", func(c goja.FunctionCall) goja.Value {
		return vm.ToValue(vm.NewArrayBuffer([]byte(c.Argument(0).String())))
	})
	set("encodeInto", func(c goja.FunctionCall) goja.Value {
		dst := h.bytesOf(c.Argument(1))
		read, written := 0, 0
		for _, r := range c.Argument(0).String() {
			n := utf8.RuneLen(r)
			if n < 0 {
				n, r = 3, utf8.RuneError
			}
			if written+n > len(dst) {
				break
			}
			utf8.EncodeRune(dst[written:], r)
			written += n
			if r >= 0x10000 {
				read += 2
			} else {
				read++
			}
		}
		return vm.NewArray(read, written)
	})
	set("decode", func(c goja.FunctionCall) goja.Value {
		b := h.bytesOf(c.Argument(0))
		if c.Argument(2).ToBoolean() {
			b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		}
		if utf8.Valid(b) {
			return vm.ToValue(string(b))
		}
		if c.Argument(1).ToBoolean() {
			panic(vm.NewTypeError("The encoded data was not valid for encoding utf-8"))
		}
		// One U+FFFD per bad byte: close to, not exactly, WHATWG's rule.
		var sb strings.Builder
		for len(b) > 0 {
			r, n := utf8.DecodeRune(b)
			if r == utf8.RuneError && n == 1 {
				sb.WriteString("\uFFFD")
			} else {
				sb.Write(b[:n])
			}
			b = b[n:]
		}
		return vm.ToValue(sb.String())
	})
	set("utf8Tail", func(c goja.FunctionCall) goja.Value {
		b := h.bytesOf(c.Argument(0))
		// A sequence cut short is at most 3 bytes: find its lead byte.
		for i := 1; i <= 3 && i <= len(b); i++ {
			if utf8.RuneStart(b[len(b)-i]) {
				if !utf8.FullRune(b[len(b)-i:]) {
					return vm.ToValue(i)
				}
				break
			}
		}
		return vm.ToValue(0)
	})
	set("random", func(c goja.FunctionCall) goja.Value {
		b := h.bytesOf(c.Argument(0))
		for i := range b {
			b[i] = byte(h.rng.Uint32())
		}
		return goja.Undefined()
	})
	set("now", func(goja.FunctionCall) goja.Value { return vm.ToValue(float64(h.now) / 1e6) })
	set("timeOrigin", float64(wallStart.UnixMilli())-float64(clockStart)/1e6)
	set("report", func(c goja.FunctionCall) goja.Value {
		h.uncaught(c.Argument(0))
		return goja.Undefined()
	})

	fn, err := vm.RunProgram(prog)
	if err != nil {
		return fmt.Errorf("jshost: shims.js: %w", err)
	}
	call, _ := goja.AssertFunction(fn)
	if _, err := call(goja.Undefined(), n); err != nil {
		return fmt.Errorf("jshost: shims.js: %w", err)
	}
	return nil
}

// bytesOf returns the bytes a typed array, DataView or ArrayBuffer views,
// without copying.
func (h *Host) bytesOf(v goja.Value) []byte {
	var b []byte
	if err := h.vm.ExportTo(v, &b); err != nil {
		panic(h.vm.NewTypeError("jshost: expected an ArrayBuffer or a view of one"))
	}
	return b
}

func (h *Host) writeFD(fd int64, p []byte) error {
	switch fd {
	case 1:
		_, err := h.stdout.Write(p)
		return err
	case 2:
		if n := min(len(p), maxErrOut-len(h.errOut)); n > 0 {
			h.errOut = append(h.errOut, p[:n]...)
		}
		_, err := h.stderr.Write(p)
		return err
	}
	return fmt.Errorf("write to fd %d: bad file descriptor", fd)
}

// uncaught reports an exception nobody caught (in a timer, a listener, a
// posted task) on stderr, as a browser's console would, and goes on.
func (h *Host) uncaught(x any) {
	var msg string
	switch x := x.(type) {
	case *goja.InterruptedError:
		return
	case *goja.Exception:
		msg = h.describe(x.Value())
	case goja.Value:
		msg = h.describe(x)
	case error:
		msg = x.Error()
	default:
		msg = fmt.Sprint(x)
	}
	_ = h.writeFD(2, []byte("Uncaught "+msg+"\n"))
}

// describe renders a thrown value: an Error's stack, else its String().
func (h *Host) describe(v goja.Value) string {
	e := h.jsError(v)
	if e.Stack != "" {
		return e.Stack
	}
	if e.Name != "" {
		return e.Name + ": " + e.Message
	}
	return e.Message
}

// jsError converts a thrown or rejected value.
func (h *Host) jsError(v goja.Value) *JSError {
	if v == nil {
		v = goja.Undefined()
	}
	obj, ok := v.(*goja.Object)
	if ok && h.errorCtor != nil && h.vm.InstanceOf(obj, h.errorCtor) {
		e := &JSError{}
		if x := obj.Get("name"); x != nil {
			e.Name = x.String()
		}
		if x := obj.Get("message"); x != nil {
			e.Message = x.String()
		}
		if x := obj.Get("stack"); x != nil && !goja.IsUndefined(x) {
			e.Stack = x.String()
		}
		return e
	}
	return &JSError{Message: v.String(), Value: v.Export()}
}

// asError turns what a goja call returned into an error for Go callers.
func (h *Host) asError(err error) error {
	var ex *goja.Exception
	var intr *goja.InterruptedError
	switch {
	case errors.As(err, &intr):
		return ErrClosed
	case errors.As(err, &ex):
		return h.jsError(ex.Value())
	}
	return err
}

func (h *Host) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if op == goja.PromiseRejectionReject {
		h.rejected = append(h.rejected, p)
		return
	}
	for i, q := range h.rejected {
		if q == p {
			h.rejected = append(h.rejected[:i], h.rejected[i+1:]...)
			return
		}
	}
}

// reportRejections reports the promises rejected during the last task that
// still have no handler, as "Uncaught (in promise)".
func (h *Host) reportRejections() {
	for len(h.rejected) > 0 {
		p := h.rejected[0]
		h.rejected = h.rejected[1:]
		_ = h.writeFD(2, []byte("Uncaught (in promise) "+h.describe(p.Result())+"\n"))
	}
}

// LogWriter returns an io.Writer that hands each complete line to logf, such
// as testing.T.Logf, for Config.Stdout and Config.Stderr. A last line without a
// newline stays buffered.
func LogWriter(logf func(format string, args ...any)) io.Writer {
	return &lineWriter{logf: logf}
}

type lineWriter struct {
	mu   sync.Mutex
	logf func(format string, args ...any)
	buf  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.logf("%s", w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}
