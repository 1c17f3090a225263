//go:build !js

package demotest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
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
	require.NoError(t, p.Eval(t.Context(), watchCards+`
		await useThinking();
		say("What's the time in Tokyo?");
		await until(() => $("#conversation .call.state-forming dd"), "the call forming");`, nil))
	shot(t, p, "call-forming")
	got := eval[page](t, p, `
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

type compacted struct {
	Notice, Usage string
	Before, After int
	Swapped       bool
	Results       []map[string]any
	Cards         []card
}

const readCompacted = `return { notice: $$("#conversation .notice").at(-1)?.textContent ?? "", usage: $("#usage-text").textContent,
	before: Number($$("#conversation .notice").at(-1)?.dataset.before), after: demo.session.contextUsage,
	swapped: demo.session !== globalThis.old, results: toolResults(), cards: cards() };`

// compactAfterThreeTurns has three turns with tool calls, then presses Compact.
const compactAfterThreeTurns = `
	say("Read file planets"); await idle();
	say("List files"); await idle();
	say("Calculate 2 + 2"); await idle();
	globalThis.old = demo.session;
	$("#compact").click();
	await until(() => $$("#conversation .notice").length, "the compaction");
	await idle();
`

// TestDemo_Compact: the header's Compact button swaps the session for session.compact()'s:
// the tool results before the last two turns become stubs, the conversation is shown
// from the new history, and a notice says contextUsage before → after, which the
// context meter then shows.
func TestDemo_Compact(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		got := eval[compacted](t, p, compactAfterThreeTurns+readCompacted)
		shot(t, p, "compacted")
		require.True(t, got.Swapped)
		require.Less(t, got.After, got.Before)
		require.Equal(t, fmt.Sprintf("CompactedcontextUsage %s → %s: the last two turns are whole, the tool results before them were dropped.", comma(got.Before), comma(got.After)), got.Notice)
		require.Regexp(t, "^"+comma(got.After)+" / ", got.Usage)
		require.Len(t, got.Results, 3)
		require.NotContains(t, fmt.Sprint(got.Results[0]), "Jupiter", "the first result, before the last two turns, is a stub")
		require.Contains(t, fmt.Sprint(got.Results[2]), "4")
		require.Len(t, got.Cards, 3)
	})
}

// TestDemo_CompactSurvivesReload: a compacted conversation is the one kept across a
// reload (the new session is saved, not the old one).
func TestDemo_CompactSurvivesReload(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		before := eval[[]any](t, p, compactAfterThreeTurns+`
			const { snapshotStore } = await import("/js/language-model.js");
			const store = snapshotStore("langmodel-demo");
			const want = JSON.stringify(demo.session.history);
			await until(() => globalThis.savedHistory === want || (store.load("chat").then((s) => (globalThis.savedHistory = JSON.stringify(s?.history))), false), "the compacted history saved");
			return demo.session.history;`)
		reload(t, p)
		after := eval[[]any](t, p, `return demo.session.history;`)
		require.Equal(t, before, after)
	})
}

// comma writes n as the page does (toLocaleString("en")).
func comma(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// waitSaved waits until the saved conversation (keep.js, autosave) holds the session's
// history as it is.
const waitSaved = `
	const { snapshotStore } = await import("/js/language-model.js");
	const store = snapshotStore("langmodel-demo");
	const want = JSON.stringify(demo.session.history);
	await until(() => globalThis.savedHistory === want || (store.load("chat").then((s) => (globalThis.savedHistory = JSON.stringify(s?.history))), false), "the conversation saved");
`

// TestDemo_NestedCards: the researcher (a session as a tool) does its task with a tool
// of its own; that call (the child's call_1, as the parent's call is) shows as a card of
// its own inside the research call's card, done with its result, and the parent's
// history holds the research call alone.
// After a reload, the conversation restored shows them the same, durations included
// (keep.js keepExtras).
func TestDemo_NestedCards(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		type nested struct {
			Top, Inner                  []card
			TopID, InnerID, InnerParent string
			Calls                       []string
		}
		const readNested = `
			const read = (c) => ({ tool: c.dataset.tool, state: [...c.classList].find((k) => k.startsWith("state-")).slice(6),
				status: c.querySelector(":scope > .call-head .call-status").textContent,
				result: c.querySelector(":scope > .call-body > .call-result pre")?.textContent ?? "" });
			const top = $$("#conversation .call").filter((c) => !c.parentElement.closest(".call"));
			const inner = $$("#conversation .call-children .call");
			top[0]?.scrollIntoView();
			return { top: top.map(read), inner: inner.map(read), topID: top[0]?.dataset.callId, innerID: inner[0]?.dataset.callId,
				innerParent: inner[0]?.parentElement.closest(".call").dataset.tool,
				calls: demo.session.history.filter((m) => m.role === "tool-call").map((m) => m.content[0].value.name) };`
		got := eval[nested](t, p, `say("Research: look up planets"); await idle();`+readNested)
		shot(t, p, "nested-cards")
		// After a reload, the restored conversation shows the child's card again, nested as it was.
		eval[bool](t, p, waitSaved+`return true;`)
		reload(t, p)
		after := eval[nested](t, p, readNested)
		require.Equal(t, got, after, "the nested cards are rebuilt after a reload, with their durations")
		require.Len(t, got.Top, 1)
		require.Equal(t, "research", got.Top[0].Tool)
		require.Equal(t, "success", got.Top[0].State)
		require.Len(t, got.Inner, 1)
		require.Equal(t, "look_up_data_file", got.Inner[0].Tool)
		require.Equal(t, "success", got.Inner[0].State)
		require.Contains(t, got.Inner[0].Result, "Jupiter")
		require.Equal(t, "research", got.InnerParent)
		require.Equal(t, []string{"call_1", "call_1"}, []string{got.TopID, got.InnerID}, "the child's first call is call_1 too: cards are keyed by path and callID")
		require.Equal(t, []string{"research"}, got.Calls)
	})
}

// TestDemo_Thinking: what the thinking demo model thinks (the reasoning event) shows in
// a collapsed "Thinking" block above the answer it leads to, and nowhere in the answer;
// after a reload, the conversation restored shows it there again (keep.js keepExtras).
func TestDemo_Thinking(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		type thinking struct {
			Kinds         []string
			Summary, Text string
			Open          bool
			Answer        string
		}
		const readThinking = `
			const block = $("#conversation .thinking");
			return { kinds: [...$("#conversation").children].map((e) => e.className).filter((k) => !k.startsWith("notice")), summary: block?.querySelector("summary").textContent,
				text: block?.querySelector(".thinking-text").textContent, open: block?.open, answer: lastAssistant() };`
		got := eval[thinking](t, p, watchCards+`
			await useThinking();
			say("Tell me a joke"); await idle();`+readThinking)
		// After a reload, the restored conversation shows the Thinking block again, where it was.
		eval[bool](t, p, waitSaved+`return true;`)
		reload(t, p)
		after := eval[thinking](t, p, readThinking)
		require.Equal(t, got, after, "the Thinking block is rebuilt after a reload")
		require.Equal(t, []string{"msg user", "thinking", "msg assistant"}, got.Kinds)
		require.Equal(t, "Thinking", got.Summary)
		require.False(t, got.Open)
		require.Equal(t, "No tool fits this message; I answer it myself.", got.Text)
		require.Equal(t, "You said: Tell me a joke", got.Answer)
		require.NoError(t, p.Eval(t.Context(), `$("#conversation .thinking summary").click();`, nil))
		shot(t, p, "thinking")
	})
}

// TestDemo_ManyTools: "Many tools" adds 300 generated tools, so tool search takes over:
// "Find a tool to convert currency" is the engine's search (a "Tool search" card marked
// builtin, with the tools found), the active set shown in the settings (search_tools and
// the page's own tools, pinned) grows by what it found, and a found tool is then called
// and runs.
func TestDemo_ManyTools(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		type page struct {
			Before, Active string
			Cards          []card
			Builtin        []bool
			Title          string
		}
		got := eval[page](t, p, `
			$("#many-tools").click();
			await until(() => demo.state.config.manyTools, "the many-tools session");
			const before = $("#active-set").textContent;
			say("Find a tool to convert currency"); await idle();
			say('/convert_currency {"id": "100 USD"}'); await idle();
			return { before, active: $("#active-set").textContent, cards: cards(),
				builtin: $$("#conversation .call").map((c) => c.classList.contains("builtin")),
				title: $("#conversation .call .call-title").textContent };`)
		const pinned = "pinned: get_current_time, calculate, read_data_file, add_note, clear_notes, wait_seconds, research"
		require.Equal(t, "Active set: search_tools · "+pinned+" · found: nothing yet · 300 more tools by search", got.Before)
		require.Regexp(t, `^Active set: search_tools · `+pinned+` · found: convert_currency(, \w+)* · 300 more tools by search$`, got.Active)
		require.Len(t, got.Cards, 2)
		require.Equal(t, "search_tools", got.Cards[0].Tool)
		require.Equal(t, "success", got.Cards[0].State)
		require.Contains(t, got.Cards[0].Result, "- convert_currency(id): ")
		require.Equal(t, "Tool search", got.Title)
		require.Equal(t, []bool{true, false}, got.Builtin)
		require.Equal(t, "convert_currency", got.Cards[1].Tool)
		require.Equal(t, "success", got.Cards[1].State)
		require.Equal(t, `convert_currency done: {"id":"100 USD"}`, got.Cards[1].Result)
		shot(t, p, "many-tools")
		require.NoError(t, p.Eval(t.Context(), `$("#settings-toggle").click(); $("#active-set").scrollIntoView(); await new Promise((r) => setTimeout(r, 300));`, nil))
		shot(t, p, "many-tools-settings")
	})
}

// TestDemo_CallDropped: a call shown forming that turns out not to be one (the thinking
// model writes a call's JSON as an example, then more that makes it prose) loses its
// card (toolcalldelta's dropped), and the text shows as the answer.
func TestDemo_CallDropped(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		type page struct {
			Seen   []seenCard
			Cards  []card
			Answer string
		}
		got := eval[page](t, p, watchCards+`
			await useThinking();
			say("Show me an example of a call"); await idle();
			return { seen, cards: cards(), answer: lastAssistant() };`)
		require.NotEmpty(t, got.Seen, "the call showed forming")
		require.Equal(t, "calculate", got.Seen[0].Tool)
		require.Equal(t, "forming", got.Seen[0].State)
		require.Empty(t, got.Cards, "the card is gone")
		require.Contains(t, got.Answer, `"an example, not a call"`)
	})
}
