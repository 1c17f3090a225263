//go:build !js

package demotest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
)

// watchCards records every state the conversation's call cards show, as a person would
// see them change: after each change, each card's key (its agent path and callID),
// state, status and arguments.
const watchCards = `
globalThis.seen = [];
new MutationObserver(() => {
	for (const c of $$("#conversation .call")) {
		const key = [...c.parentElement.closest(".call")?.dataset.callId ? [c.parentElement.closest(".call").dataset.callId] : [], c.dataset.callId].join("/");
		seen.push({ key, tool: c.dataset.tool, state: [...c.classList].find((k) => k.startsWith("state-")).slice(6),
			status: c.querySelector(":scope > .call-head .call-status").textContent,
			args: [...c.querySelectorAll(":scope > .call-body > .call-args dd")].map((d) => d.textContent).join(",") });
	}
}).observe($("#conversation"), { childList: true, subtree: true, characterData: true });
globalThis.useThinking = async () => {
	setField("#backend-kind", "thinking");
	$("#backend-apply").click();
	await until(() => /ok|error/.test($("#backend-result").className), "the thinking model");
	if (!/ok/.test($("#backend-result").className)) throw new Error($("#backend-result").textContent);
};
`

type seenCard struct {
	Key, Tool, State, Status, Args string
}

// TestDemo_CallForms: with the thinking demo model, which writes its call a few
// characters at a time, the call's card shows as soon as the tool is named ("writing…"),
// its argument fills in as it is written, and that same card (same callID) then runs and
// ends in success: one card, never a second.
func TestDemo_CallForms(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoCallForms)
}

func demoCallForms(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type page struct {
		Seen  []seenCard
		Cards []card
		Label string
	}
	got := eval[page](t, p, watchCards+`
		await useThinking();
		say("What's the time in Tokyo?");
		await idle();
		return { seen, cards: cards(), label: $("#backend-label").textContent };`)
	require.Equal(t, "Thinking demo model", got.Label)
	require.Len(t, got.Cards, 1)
	require.Equal(t, "success", got.Cards[0].State)
	require.Contains(t, got.Cards[0].Result, "Asia/Tokyo")
	first := got.Seen[0]
	require.Equal(t, seenCard{Key: "call_1", Tool: "get_current_time", State: "forming", Status: "writing…", Args: first.Args}, first)
	var partial []string
	for _, s := range got.Seen {
		require.Equal(t, "call_1", s.Key, "one card, the same call throughout")
		if s.State == "forming" && s.Args != "" && s.Args != `"Tokyo"` {
			partial = append(partial, s.Args)
		}
	}
	require.NotEmpty(t, partial, "the argument shown while it is written: %v", got.Seen)
	for _, a := range partial {
		require.True(t, strings.HasPrefix(`"Tokyo`, strings.TrimSuffix(a, `"`)), "a part of the argument as written: %s in %v", a, partial)
	}
	require.Greater(t, len(partial[len(partial)-1]), len(`""`), "the argument grows as it is written: %v", partial)
	shot(t, p, "call-forms")
}
