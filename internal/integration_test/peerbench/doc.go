// Package peerbench holds `make bench-peers`: the module against the JavaScript peer a
// web developer would pick instead, the Vercel AI SDK, in the same headless Chromium page
// with interleaved rounds and the same scripted-model / no-op-tool workload (bench.js).
// It prints one table of ratios (module ÷ SDK): the closed-loop step at 1, 10, 100 and
// 1,000-step loops, a 10,000-message history, cold and warm start to the first answer,
// the longest main-thread task during start, and the bytes each ships (brotli).
//
// The SDK (`ai`, `zod`) and esbuild are pinned in package.json, installed by make
// bench-peers (npm ci) and bundled into a temporary directory at benchmark time; they
// are never shipped nor committed. The benchmark is not part of make test, but the
// package compiles without them, so go test ./... and go vet ./... are unaffected.
package peerbench
