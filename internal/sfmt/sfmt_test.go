package sfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

type kind string

type stringer struct{}

type (
	count  int16
	amount float32
	flag   bool
	blob   []byte
	id     uintptr
)

func (stringer) String() string { return "a stringer" }

// TestSprintf_AgreesWithFmt: every verb the engine uses, on every kind of value it
// formats, gives what fmt gives.
func TestSprintf_AgreesWithFmt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format string
		args   []any
	}{
		{"plain text and %%", "100%% sure", nil},
		{"a string", "%s and %v", []any{"a", "b"}},
		{"a named string", "%s %q", []any{kind("TypeError"), kind("x")}},
		{"json.Number", "%s %v", []any{json.Number("1.5"), json.Number("2")}},
		{"quoted with escapes", "%q", []any{"a \"b\"\n\u2028é"}},
		{"ints of every size", "%d %d %d %d %v %d", []any{-1, int64(1 << 40), int32(7), uint8(255), uint64(3), int64(math.MinInt64)}},
		{"every other integer kind", "%d %v %d %d %d %d", []any{int8(-8), int16(-16), uint(1), uint16(16), uint32(32), uintptr(9)}},
		{"named numbers, bools and bytes by their kind", "%d %v %v %v %s %v", []any{count(-3), amount(2.5), flag(true), blob{1, 2}, blob("ab"), id(7)}},
		{"a bool", "%v", []any{true}},
		{"floats", "%v %v %v", []any{1.5, 1e21, float32(0.1)}},
		{"an error", "%v; %s; %q", []any{io.EOF, io.EOF, io.EOF}},
		{"a Stringer", "%s %v %q", []any{stringer{}, stringer{}, stringer{}}},
		{"bytes", "%s %q %v", []any{[]byte("ab"), []byte("c"), []byte{1, 2}}},
		{"raw JSON", "%s", []any{json.RawMessage(`{"a":1}`)}},
		{"types", "%T %T %T %T %T %T", []any{"", 1.0, json.Number("1"), []any{}, map[string]any{}, struct{}{}}},
		{"nil", "%v %T", []any{nil, nil}},
		{"nil under %s", "%s", []any{nil}},
		{"a missing operand", "%s and %d", []any{"one"}},
		{"a trailing percent", "50%", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, fmt.Sprintf(tc.format, tc.args...), Sprintf(tc.format, tc.args...))
			require.Equal(t, string(fmt.Appendf([]byte("x:"), tc.format, tc.args...)), string(Appendf([]byte("x:"), tc.format, tc.args...)))
		})
	}
}

// TestErrorf_Wraps: %w operands stay reachable through errors.Is, as with fmt.Errorf.
func TestErrorf_Wraps(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	for _, tc := range []struct {
		name   string
		err    error
		want   error
		is, no []error
	}{
		{"no %w", Errorf("x %d", 1), fmt.Errorf("x %d", 1), nil, []error{errA}},
		{"one %w", Errorf("x: %w", errA), fmt.Errorf("x: %w", errA), []error{errA}, []error{errB}},
		{"two %w", Errorf("%w, and %w", errA, errB), fmt.Errorf("%w, and %w", errA, errB), []error{errA, errB}, nil},
		{"%w and %v", Errorf("%w: %v", errA, errB), fmt.Errorf("%w: %v", errA, errB), []error{errA}, []error{errB}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.EqualError(t, tc.err, tc.want.Error())
			for _, e := range tc.is {
				require.ErrorIs(t, tc.err, e)
			}
			for _, e := range tc.no {
				require.NotErrorIs(t, tc.err, e)
			}
		})
	}
}
