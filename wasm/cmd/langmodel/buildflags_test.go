//go:build !js

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// TestModule_BuildFlags: the tests build the module as make module does: with the
// Makefile's NOINLINE, which browsertest.NoInline reads, each a package of the module's
// (a renamed one would match nothing, and its code would be inlined again unnoticed).
func TestModule_BuildFlags(t *testing.T) {
	makefile, err := os.ReadFile("../../../Makefile")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^NOINLINE := (.*)$`).FindSubmatch(makefile)
	require.NotNil(t, m, "the Makefile sets NOINLINE")
	require.NotEmpty(t, strings.Fields(string(m[1])), "the Makefile's NOINLINE")
	require.Equal(t, strings.Fields(string(m[1])), browsertest.NoInline(), "the Makefile's NOINLINE and browsertest.NoInline")
	require.Contains(t, string(makefile), "$(GO) build -trimpath $(MODULE_GCFLAGS) -ldflags='-s -w -buildid=' -o $(BUILD)/langmodel.wasm", "make module builds with NOINLINE")
	for _, p := range browsertest.NoInline() {
		files, err := filepath.Glob(filepath.Join("../../..", p, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "NOINLINE names %s, which holds no Go files", p)
	}
}
