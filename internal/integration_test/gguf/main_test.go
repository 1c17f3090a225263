//go:build !js

// Package gguf plays the module's gguf backend over real llama.cpp in the page (wllama
// 3.13.0, served by internal/testing/browsertest) with the project's toy GGUF models
// (internal/testing/toygguf), in headless Chromium, Firefox and WebKit, with the module on
// the page and in a Worker: downloads, the cache and their errors, docs/backends.md's
// example, chains of GGUF members, reasoning, weights held once, tool search and the
// prefix cache. The engine backend over a page's own wllama, and the model families, are
// internal/integration_test/llamacpp's; the two suites run beside each other.
package gguf

import (
	"testing"

	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite's tests (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }
