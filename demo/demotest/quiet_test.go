//go:build !js

package demotest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/toygguf"
)

// chromiumProbe is what Chromium itself prints at each availability() of its own model
// when it has no configuration to run it: the page cannot silence it, only ask once
// (install() asks; the demo reuses the answer). demo/README.md explains the line.
const chromiumProbe = "The model was available but there was not an execution config available for the feature."

// TestDemo_QuietConsole: a normal visit — a tool call on the offline model, then the
// in-page model loaded and asked — prints nothing of the page's own to the console: no
// wllama debug lines, and Chromium's probe warning once, not once per question. The
// in-page model's hint is up to date as soon as the model has loaded, with no need to
// pick it again. Chromium only: the other engines have no model of their own to probe.
func TestDemo_QuietConsole(t *testing.T) {
	t.Parallel()
	extra := browsertest.WllamaHandlers(t)
	extra["/models/toy.gguf"] = browsertest.GGUF(t, toygguf.Clock)
	p := open(t, browsertest.Shared(t), serve(t, extra))
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var hints []string
	require.NoError(t, p.Eval(ctx, `
		say("Show me the world clock"); await idle();
		$("#settings-toggle").click();
		setField("#backend-kind", "gguf");
		await until(() => $("#gguf-availability").textContent, "availability()");
		const before = $("#gguf-availability").textContent;
		$("#backend-apply").click();
		await until(() => /ok|error/.test($("#backend-result").className), "the model to load", 60000);
		await until(() => $("#gguf-availability").textContent !== before, "the hint to change");
		const after = $("#gguf-availability").textContent;
		say("What time is it in Tokyo?");
		await until(() => document.body.dataset.busy === "false", "the turn to end", 120000);
		return [before, after];`, &hints))
	require.Equal(t, []string{"It will be downloaded first.", "Ready: in this page or the browser's cache."}, hints)
	var probes int
	for _, line := range p.Console() {
		if strings.Contains(line, chromiumProbe) {
			probes++
			continue
		}
		require.Fail(t, "a console line of the page's own", "%q", line)
	}
	require.LessOrEqual(t, probes, 1, "Chromium's probe warning, once at most")
}
