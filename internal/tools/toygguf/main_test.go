package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/toygguf"
)

func TestRun(t *testing.T) {
	weather, err := toygguf.Bytes(toygguf.Weather)
	require.NoError(t, err)
	twoCalls, err := toygguf.Bytes(toygguf.TwoCalls)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "toy.gguf")
	for _, tc := range []struct {
		name       string
		args       []string
		wantStdout []byte
		wantFile   []byte
		wantErr    string
	}{
		{"the weather model by default, to standard output", nil, weather, nil, ""},
		{"a named model to a file", []string{"-script", "two-calls", "-o", file}, nil, twoCalls, ""},
		{"an unknown model", []string{"-script", "poetry"}, nil, nil,
			`no script "poetry" (known: always-calls, hello, two-calls, weather, weather-with-text)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.True(t, bytes.Equal(tc.wantStdout, stdout.Bytes()), "stdout")
			if tc.wantFile != nil {
				got, err := os.ReadFile(file)
				require.NoError(t, err)
				require.True(t, bytes.Equal(tc.wantFile, got), "file")
			}
		})
	}
}
