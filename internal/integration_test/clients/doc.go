// Package clients tests LanguageModel as users already drive it: through the two AI SDK
// providers for the Prompt API on npm, @browser-ai/core and @built-in-ai/core, bundled at
// test time with esbuild from internal/npm (dev-only, pinned, never shipped) and run
// against the real module in headless Chromium. The package has no code of its own.
package clients
