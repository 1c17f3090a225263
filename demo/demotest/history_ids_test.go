//go:build !js

package demotest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// TestDemo_HistoryIDs: a session recreated from its history (the history panel's
// "recreate", a settings change) gives its calls ids the history does not have, so each
// new call gets a card of its own: in the closed loop the new result lands on the new card
// and the old card keeps its own; in the open loop the paused call is the new one, with
// its own arguments, and running it answers it.
func TestDemo_HistoryIDs(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoHistoryIDs)
}

func demoHistoryIDs(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type result struct {
		Cards    []card
		Answer   string
		Paused   string
		Distinct bool
		IDs      []string
	}
	ids := `const ids = demo.session.history.filter((m) => m.role === "tool-call").map((m) => m.content[0].value.callID);`
	closed := eval[result](t, p, `
		say("Calculate 2 + 2"); await idle();
		$("#history-open").click();
		await until(() => $("#history-dialog").open, "the history panel");
		$("#recreate").click();
		await until(() => $("#recreate-result").classList.contains("ok") || $("#recreate-result").classList.contains("error"), "recreate");
		$("#history-close").click();
		say("Calculate 3 * 3"); await idle();
		`+ids+`
		return { cards: cards(), answer: lastAssistant(), distinct: new Set(ids).size === ids.length, ids };`)
	require.Len(t, closed.Cards, 2, "the new call has a card of its own")
	require.Contains(t, closed.Cards[0].Result, "4", "the old card keeps its result")
	require.Contains(t, closed.Cards[1].Result, "9")
	require.Equal(t, "calculate: 3 * 3 = 9", closed.Answer)
	require.True(t, closed.Distinct, "call ids %v", closed.IDs)

	open := eval[result](t, p, `
		choose("loop", "open");
		await until(() => $("#mode-label").textContent === "open loop", "open mode");
		$("#pause").checked = true; $("#pause").dispatchEvent(new Event("change"));
		say("Calculate 5 - 1");
		const c = await until(() => $("#conversation .call.state-paused"), "the paused call");
		const paused = c.querySelector(".call-brief").textContent;
		const all = $$("#conversation .call");
		if (all.at(-1) !== c) throw new Error("the paused card is not the newest: " + paused);
		button(c, "Run this call").click();
		await idle();
		`+ids+`
		return { cards: cards(), answer: lastAssistant(), paused, distinct: new Set(ids).size === ids.length, ids };`)
	shot(t, p, "history-ids")
	require.Contains(t, open.Paused, "5 - 1", "the paused call is the new one, with its own arguments")
	require.Len(t, open.Cards, 3)
	require.Contains(t, open.Cards[0].Result, "4")
	require.Contains(t, open.Cards[1].Result, "9")
	require.Equal(t, "success", open.Cards[2].State)
	require.Contains(t, open.Cards[2].Result, "4")
	require.Equal(t, "calculate: 5 - 1 = 4", open.Answer)
	require.True(t, open.Distinct, "call ids %v", open.IDs)
}
