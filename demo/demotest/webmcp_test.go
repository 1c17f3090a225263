//go:build !js

package demotest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// TestDemo_WebMCP: where the page has document.modelContext (Chromium with WebMCP), the
// demo registers its tools there, clear_notes as consequential, and its closed-loop chat
// runs them from there: a call of the chat ends in success, and a tool the page registers
// meanwhile is offered to the model.
func TestDemo_WebMCP(t *testing.T) {
	t.Parallel()
	b := browsertest.Shared(t) // Chromium, run with --enable-features=WebMCP
	p := open(t, b, serve(t, nil))
	type page struct {
		Tools         []string
		Consequential []string
		Ran           string
	}
	got := eval[page](t, p, `const tools = await document.modelContext.getTools();
		const ran = [];
		await document.modelContext.registerTool({ name: "page_echo", description: "Echo", execute: () => (ran.push("echo"), "echoed") });
		await document.modelContext.getTools(); // after the session's own: its new tools are sent
		await demo.send("/page_echo");
		return { tools: tools.map((t) => t.name).sort(),
			consequential: tools.filter((t) => t.annotations?.consequentialHint).map((t) => t.name),
			ran: ran.join() };`)
	require.Contains(t, got.Tools, "clear_notes")
	require.Contains(t, got.Tools, "read_data_file")
	require.Equal(t, []string{"clear_notes"}, got.Consequential)
	require.Equal(t, "echo", got.Ran, "a tool registered after the session was made ran through it")
}
