package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var errWhy = errors.New("why")

// ended waits for ctx to end; the wait is a guard against a hang, not a measurement.
func ended(t *testing.T, ctx Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the context did not end")
	}
}

// TestCancel_AsPackageContext: the loop's contexts end, and say why, as package
// context's do.
func TestCancel_AsPackageContext(t *testing.T) {
	for _, tc := range []struct {
		name      string
		run       func() Context // returns the context under test, ended or not
		done      bool           // Done is closed when run returns
		err       error
		cause     error
		stdParent bool // the context ends on a goroutine (a parent of package context's)
	}{
		{"Background never ends", Background, false, nil, nil, false},
		{"WithCancel, not cancelled", func() Context { c, _ := WithCancel(Background()); return c }, false, nil, nil, false},
		{"WithCancel, cancelled", func() Context {
			c, cancel := WithCancel(Background())
			cancel()
			return c
		}, true, context.Canceled, context.Canceled, false},
		{"WithCancelCause with a cause", func() Context {
			c, cancel := WithCancelCause(Background())
			cancel(errWhy)
			return c
		}, true, context.Canceled, errWhy, false},
		{"WithCancelCause with nil: Canceled", func() Context {
			c, cancel := WithCancelCause(Background())
			cancel(nil)
			return c
		}, true, context.Canceled, context.Canceled, false},
		{"the first cancel wins", func() Context {
			c, cancel := WithCancelCause(Background())
			cancel(errWhy)
			cancel(errors.New("later"))
			return c
		}, true, context.Canceled, errWhy, false},
		{"a child ends with its parent, at once, with the parent's cause", func() Context {
			p, cancel := WithCancelCause(Background())
			c, _ := WithCancel(p)
			cancel(errWhy)
			return c
		}, true, context.Canceled, errWhy, false},
		{"a grandchild ends with its grandparent, at once", func() Context {
			p, cancel := WithCancelCause(Background())
			c, _ := WithCancel(p)
			g, _ := WithCancelCause(c)
			cancel(errWhy)
			return g
		}, true, context.Canceled, errWhy, false},
		{"a child of an ended parent is born ended", func() Context {
			p, cancel := WithCancelCause(Background())
			cancel(errWhy)
			c, _ := WithCancel(p)
			return c
		}, true, context.Canceled, errWhy, false},
		{"a child's cancel leaves its parent running", func() Context {
			p, _ := WithCancel(Background())
			_, cancel := WithCancel(p)
			cancel()
			return p
		}, false, nil, nil, false},
		{"a child of package context's ends with it", func() Context {
			p, cancel := context.WithCancel(context.Background())
			c, _ := WithCancelCause(p)
			cancel()
			return c
		}, false, context.Canceled, context.Canceled, true},
		{"a child of package context's ended context is born ended", func() Context {
			p, cancel := context.WithCancel(context.Background())
			cancel()
			c, _ := WithCancelCause(p)
			return c
		}, true, context.Canceled, context.Canceled, false},
		{"a child of package context's deadline says so", func() Context {
			p, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
			defer cancel()
			c, _ := WithCancel(p)
			return c
		}, true, context.DeadlineExceeded, context.DeadlineExceeded, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.run()
			if tc.stdParent {
				ended(t, c)
			}
			select {
			case <-c.Done():
				require.True(t, tc.done || tc.stdParent, "Done is closed")
			default:
				require.False(t, tc.done, "Done is open")
			}
			sameErr(t, tc.err, c.Err())
			sameErr(t, tc.cause, Cause(c))
		})
	}
}

// TestCancel_DetachedChildren: a parent does not keep the children that ended before it.
func TestCancel_DetachedChildren(t *testing.T) {
	p, cancelParent := WithCancel(Background())
	for range 3 {
		_, cancel := WithCancel(p)
		cancel()
	}
	live, _ := WithCancel(p)
	require.Len(t, p.(*canceler).hooks, 1, "only the live child")
	cancelParent()
	sameErr(t, context.Canceled, live.Err())
	require.Empty(t, p.(*canceler).hooks)
}

// TestAfterFunc_AsPackageContext: f runs once the context ends, unless stop came first;
// stop says which happened.
func TestAfterFunc_AsPackageContext(t *testing.T) {
	kinds := []struct {
		name string
		make func() (Context, func())
	}{
		{"the loop's context", func() (Context, func()) { c, cancel := WithCancel(Background()); return c, cancel }},
		{"package context's", func() (Context, func()) {
			c, cancel := context.WithCancel(context.Background())
			return c, cancel
		}},
	}
	for _, k := range kinds {
		for _, tc := range []struct {
			name     string
			steps    func(cancel func(), stop func() bool) []bool // stop's answers
			runs     bool
			wantStop []bool
		}{
			{"cancel runs f; stop then says false", func(cancel func(), stop func() bool) []bool {
				cancel()
				return nil
			}, true, nil},
			{"stop first keeps f from running", func(cancel func(), stop func() bool) []bool {
				s := stop()
				cancel()
				return []bool{s}
			}, false, []bool{true}},
			{"a second stop says false", func(cancel func(), stop func() bool) []bool {
				return []bool{stop(), stop()}
			}, false, []bool{true, false}},
		} {
			t.Run(k.name+": "+tc.name, func(t *testing.T) {
				ctx, cancel := k.make()
				ran := make(chan struct{})
				stop := AfterFunc(ctx, func() { close(ran) })
				require.Equal(t, tc.wantStop, tc.steps(cancel, stop))
				if tc.runs {
					<-ran
					require.False(t, stop(), "f has started")
					return
				}
				cancel()
				select {
				case <-ran:
					t.Fatal("f ran after stop")
				default:
				}
			})
		}
		t.Run(k.name+": an ended context runs f at once", func(t *testing.T) {
			ctx, cancel := k.make()
			cancel()
			ran := make(chan struct{})
			stop := AfterFunc(ctx, func() { close(ran) })
			<-ran
			require.False(t, stop())
		})
	}
}

// TestCancel_hammer: parents, children and AfterFuncs cancelled and stopped from many
// goroutines at once (run with -race): every child ends with its parent, every f runs
// at most once.
func TestCancel_hammer(t *testing.T) {
	for range 200 {
		p, cancelParent := WithCancelCause(Background())
		var wg sync.WaitGroup
		var mu sync.Mutex
		runs := 0
		children := make([]Context, 8)
		for i := range children {
			c, cancel := WithCancel(p)
			children[i] = c
			stop := AfterFunc(c, func() { mu.Lock(); runs++; mu.Unlock() })
			wg.Add(2)
			go func() { defer wg.Done(); cancel() }()
			go func() { defer wg.Done(); stop() }()
		}
		wg.Add(1)
		go func() { defer wg.Done(); cancelParent(errWhy) }()
		wg.Wait()
		for _, c := range children {
			ended(t, c)
			sameErr(t, context.Canceled, c.Err())
		}
		mu.Lock()
		require.LessOrEqual(t, runs, len(children))
		mu.Unlock()
	}
}

// sameErr: got is want for a Go caller: errors.Is holds, and it says the same. The
// module's Canceled is not context.Canceled's value (package context is not linked,
// internal/clock) but stands for it.
func sameErr(t *testing.T, want, got error) {
	t.Helper()
	if want == nil {
		require.NoError(t, got)
		return
	}
	require.ErrorIs(t, got, want)
	require.EqualError(t, got, want.Error())
}

// TestCanceled_IsPackageContexts: errors.Is(err, context.Canceled) holds for Canceled and
// what wraps it, and for nothing else.
func TestCanceled_IsPackageContexts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"Canceled is context.Canceled", Canceled, context.Canceled, true},
		{"wrapped, it still is", fmt.Errorf("the prompt: %w", Canceled), context.Canceled, true},
		{"joined, it still is", errors.Join(errors.New("other"), Canceled), context.Canceled, true},
		{"it is not a deadline", Canceled, context.DeadlineExceeded, false},
		{"nor an error of another text", Canceled, errors.New("context cancelled"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, errors.Is(tc.err, tc.target))
		})
	}
	require.EqualError(t, Canceled, "context canceled")
}
