package loop

import (
	"sync"
	"sync/atomic"
)

// Context is what the engine asks of a context: a channel closed when the work should
// stop, and why it stopped. Every context.Context is one, so Go callers pass their own.
// The module makes its contexts with Background, WithCancel and WithCancelCause below
// and never links package context's: context.Context's Deadline method returns a
// time.Time, and the module keeps every method of a type an interface can reach, so
// package context kept time's formatting and time zones in the module (RATIONALE.md
// "How does the module stay within its size budget?").
//
// The functions below behave as package context's functions of the same names do, for
// contexts without deadlines or values.
type Context interface {
	Done() <-chan struct{}
	Err() error
}

// CancelFunc ends the context WithCancel made; calls after the first do nothing.
type CancelFunc func()

// CancelCauseFunc ends the context WithCancelCause made and records why (nil: Canceled);
// calls after the first do nothing.
type CancelCauseFunc func(cause error)

// Canceled is the Err of a context ended by its CancelFunc. It is not context.Canceled,
// whose package the module does not link (with package time behind it: internal/clock says why), but it
// says the same ("context canceled") and is one for errors.Is, so that
// errors.Is(err, context.Canceled) holds whichever kind of context ended.
var Canceled error = canceled{}

type canceled struct{}

func (canceled) Error() string { return "context canceled" }

// Is makes errors.Is(Canceled, context.Canceled) true, by the text package context gives
// its error, which is as fixed as the value (the module cannot name the value).
func (canceled) Is(target error) bool {
	return target != nil && target.Error() == "context canceled"
}

type background struct{}

func (background) Done() <-chan struct{} { return nil }
func (background) Err() error            { return nil }

// Background is a context that never ends.
func Background() Context { return background{} }

// WithCancel returns a context that ends when cancel is called or when parent ends.
func WithCancel(parent Context) (Context, CancelFunc) {
	c := newCanceler(parent)
	return c, func() { c.cancel(Canceled, Canceled) }
}

// WithCancelCause is WithCancel whose cancel records a cause, which Cause returns.
func WithCancelCause(parent Context) (Context, CancelCauseFunc) {
	c := newCanceler(parent)
	return c, func(cause error) {
		if cause == nil {
			cause = Canceled
		}
		c.cancel(Canceled, cause)
	}
}

// Cause is why ctx ended: the cause given to the CancelCauseFunc that ended it or one of
// its parents, else its Err; nil while it has not ended. For a context this package did
// not make, it is ctx.Err().
func Cause(ctx Context) error {
	if c, ok := ctx.(*canceler); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.cause
	}
	return ctx.Err()
}

// AfterFunc arranges to call f on its own goroutine once ctx ends (at once if it has
// ended). stop undoes it: it returns true if it kept f from running, false if f has been
// started or stop was called before.
func AfterFunc(ctx Context, f func()) (stop func() bool) {
	if c, ok := ctx.(*canceler); ok {
		if id, added := c.hook(hook{f: f}); added {
			return func() bool { return c.remove(id) }
		}
		go f()
		return func() bool { return false }
	}
	var claimed atomic.Bool
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if claimed.CompareAndSwap(false, true) {
				f()
			}
		case <-stopped:
		}
	}()
	return func() bool {
		if !claimed.CompareAndSwap(false, true) {
			return false
		}
		close(stopped)
		return true
	}
}

// canceler is the context WithCancel and WithCancelCause make. A prompt makes two or
// three, so they cost few allocations: the done channel is made only when Done is asked
// for, and a child or an AfterFunc is a hook value in its parent's list, not a closure.
type canceler struct {
	mu       sync.Mutex
	done     chan struct{} // nil until Done is asked for, or closedChan once ended unasked
	err      error         // set once, when c ends
	cause    error         // set with err
	hooks    []hook        // what runs when c ends: its children's cancels, its AfterFuncs
	lastID   uint64        // the id of the last hook added
	parent   *canceler     // the canceler c hangs from as a child, until c ends
	inParent uint64        // c's hook id in parent
}

// hook is one thing to do when a canceler ends: end a child, or start f on a goroutine of
// its own (AfterFunc).
type hook struct {
	id    uint64
	child *canceler
	f     func()
}

// closedChan is the Done of a canceler that ended before anyone asked for it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func newCanceler(parent Context) *canceler {
	c := &canceler{}
	if p, ok := parent.(*canceler); ok {
		// c is nobody else's yet: it hangs from p before p can end it.
		c.parent = p
		id, added := p.hook(hook{child: c})
		if !added {
			c.parent = nil
			c.cancel(p.Err(), Cause(p))
			return c
		}
		c.mu.Lock()
		if c.err == nil { // p has not ended c in between
			c.inParent = id
		}
		c.mu.Unlock()
		return c
	}
	pd := parent.Done()
	if pd == nil {
		return c
	}
	select {
	case <-pd:
		c.cancel(parent.Err(), parent.Err())
	default:
		done := c.Done()
		go func() {
			select {
			case <-pd:
				c.cancel(parent.Err(), parent.Err())
			case <-done:
			}
		}()
	}
	return c
}

func (c *canceler) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	return c.done
}

func (c *canceler) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// hook adds h to what runs when c ends and returns its id; added is false when c has
// already ended, so h was not added.
func (c *canceler) hook(h hook) (id uint64, added bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, false
	}
	c.lastID++
	h.id = c.lastID
	c.hooks = append(c.hooks, h)
	return h.id, true
}

// remove takes the hook id out of c's list; it reports whether it was still there.
func (c *canceler) remove(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.hooks {
		if c.hooks[i].id == id {
			last := len(c.hooks) - 1
			c.hooks[i], c.hooks[last] = c.hooks[last], hook{}
			c.hooks = c.hooks[:last]
			return true
		}
	}
	return false
}

// cancel ends c with err and cause, then its children at once and its AfterFuncs each on
// a goroutine of its own; the first call wins.
func (c *canceler) cancel(err, cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.cause = err, cause
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	hooks, parent, id := c.hooks, c.parent, c.inParent
	c.hooks, c.parent = nil, nil
	c.mu.Unlock()
	if parent != nil && id != 0 {
		parent.remove(id) // an ended child no longer hangs from its parent
	}
	for _, h := range hooks {
		if h.child != nil {
			h.child.cancel(err, cause)
		} else {
			go h.f()
		}
	}
}
