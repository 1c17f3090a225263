package session_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// canceled stands for loop.Canceled (session cannot import loop): an error that says
// what context.Canceled says.
type canceled struct{}

func (canceled) Error() string { return "context canceled" }

// TestKindOf_ContextEnds: a context's end is an abort, whether it is package context's
// (a Go caller's context) or the module's own, wrapped or not; the module names
// neither value (it does not link package context), so this is what holds it.
func TestKindOf_ContextEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want session.Kind
	}{
		{"context.Canceled is an abort", context.Canceled, session.KindAbort},
		{"context.DeadlineExceeded is an abort", context.DeadlineExceeded, session.KindAbort},
		{"the module's Canceled is an abort", canceled{}, session.KindAbort},
		{"wrapped, it is still an abort", fmt.Errorf("the fetch: %w", context.Canceled), session.KindAbort},
		{"joined with another, it is still an abort", errors.Join(errors.New("other"), context.DeadlineExceeded), session.KindAbort},
		{"a message that only contains the words is not", errors.New("the context canceled nothing"), session.KindOperation},
		{"an unclassified error is an OperationError", errors.New("boom"), session.KindOperation},
		{"nil is no kind", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, session.KindOf(tc.err))
		})
	}
}
