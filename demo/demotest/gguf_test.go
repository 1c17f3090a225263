//go:build !js

package demotest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/toygguf"
)

// TestDemo_InPageModel: the model picker's in-page model runs the project's toy GGUF in
// llama.cpp (wllama) with no network: the progress bar fed by create()'s monitor goes
// from 0 to 1, the model calls the page's get_current_time tool (a card that ends in
// success) and answers, and the model then counts as ready (availability()).
func TestDemo_InPageModel(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoInPageModel)
}

func demoInPageModel(t *testing.T, b *browsertest.Browser) {
	extra := browsertest.WllamaHandlers(t)
	extra["/models/toy.gguf"] = browsertest.GGUF(t, toygguf.Clock)
	p := open(t, b, serve(t, extra))
	type page struct {
		Before, Result, Label, Answer, After string
		Progress                             []float64
		Bar                                  float64
		Cards                                []card
		Window                               int
	}
	// llama.cpp's first completion in WebKit (its compat build) takes seconds, and much
	// more on a loaded machine: this Eval has minutes, where browsertest's default is 30 s.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var got page
	require.NoError(t, p.Eval(ctx, `
		setField("#backend-kind", "gguf");
		await until(() => $("#gguf-availability").textContent, "availability()");
		const before = $("#gguf-availability").textContent;
		$("#backend-apply").click();
		await until(() => /ok|error/.test($("#backend-result").className), "the model to load", 60000);
		const result = $("#backend-result").textContent;
		say("What time is it in Tokyo?");
		await until(() => document.body.dataset.busy === "false", "the turn to end", 120000);
		$("#gguf-availability").textContent = "";
		setField("#backend-kind", "gguf");
		await until(() => $("#gguf-availability").textContent, "availability()");
		return { before, result, label: $("#backend-label").textContent, answer: lastAssistant(), after: $("#gguf-availability").textContent,
			progress: demo.state.ggufProgress, bar: $("#gguf-progress").value, cards: cards(), window: demo.session.contextWindow };`, &got))
	require.Equal(t, "It will be downloaded first.", got.Before)
	require.Equal(t, "Now using: In-page model.", got.Result)
	require.Equal(t, "In-page model · toy model", got.Label)
	require.Equal(t, 0.0, got.Progress[0], "progress: %v", got.Progress)
	require.Equal(t, 1.0, got.Progress[len(got.Progress)-1], "progress: %v", got.Progress)
	require.Equal(t, 1.0, got.Bar)
	require.Len(t, got.Cards, 1)
	require.Equal(t, "get_current_time", got.Cards[0].Tool)
	require.Equal(t, "success", got.Cards[0].State)
	require.Contains(t, got.Cards[0].Result, "Asia/Tokyo")
	require.Equal(t, toygguf.Clock.After, got.Answer)
	require.Equal(t, "Ready: in this page or the browser's cache.", got.After)
	require.Equal(t, toygguf.Clock.ContextLength, got.Window)
	shot(t, p, "in-page-model")
}
