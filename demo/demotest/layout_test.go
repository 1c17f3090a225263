//go:build !js

package demotest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// layoutProbe measures, in the page, what a person would see wrong: anything wider
// than the viewport (the page scrolls sideways, or a row is cut off at its right
// edge), header items that overlap one another, and example prompts that are clipped
// by their own row. It returns what it found, as sentences, so a failure names it.
const layoutProbe = `
const vw = document.documentElement.clientWidth;
const problems = [];
const name = (e) => e.id ? "#" + e.id : e.tagName.toLowerCase() + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
if (document.documentElement.scrollWidth > vw) problems.push("the page is " + document.documentElement.scrollWidth + " px wide in a " + vw + " px viewport");
for (const e of document.querySelectorAll("body *")) {
	if (e.closest("dialog:not([open]), [hidden], .sidebar:not(.open)") && getComputedStyle(e).display !== "contents") {
		const r = e.getBoundingClientRect();
		if (r.width === 0 && r.height === 0) continue;
	}
	const r = e.getBoundingClientRect();
	if (r.width === 0 || r.height === 0) continue;
	if (getComputedStyle(e).visibility === "hidden") continue;
	if (e.closest(".sidebar") && !e.closest(".sidebar").checkVisibility()) continue;
	if (r.right > vw + 0.5 && !e.closest("pre, .conversation")) problems.push(name(e) + " ends at " + Math.round(r.right) + " px, past the viewport's " + vw + " px");
}
// The header: its visible leaf items must not overlap one another.
const items = [...document.querySelectorAll(".top h1, .top .tagline, .top .pill, .top .usage, .top button")]
	.filter((e) => e.checkVisibility() && e.getBoundingClientRect().width > 0);
for (let i = 0; i < items.length; i++) {
	for (let j = i + 1; j < items.length; j++) {
		const a = items[i].getBoundingClientRect(), b = items[j].getBoundingClientRect();
		const x = Math.min(a.right, b.right) - Math.max(a.left, b.left), y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
		if (x > 0.5 && y > 0.5) problems.push("in the header, " + name(items[i]) + " overlaps " + name(items[j]));
	}
}
// The tagline may be cut with an ellipsis, but never so far that it is gone.
// The example prompts: each wholly inside its row, none clipped.
const row = document.querySelector("#examples").getBoundingClientRect();
for (const c of document.querySelectorAll("#examples .chip")) {
	const r = c.getBoundingClientRect();
	if (r.left < row.left - 0.5 || r.right > row.right + 0.5 || r.right > vw + 0.5) problems.push("the example " + JSON.stringify(c.textContent) + " is cut off (" + Math.round(r.left) + "–" + Math.round(r.right) + " px, row " + Math.round(row.left) + "–" + Math.round(row.right) + " px)");
}
return problems;`

// TestDemo_Layout: the demo looks right at a desktop window's width (1280×800) and a
// phone's (390×844): nothing wider than the viewport, the header's items apart, every
// example prompt visible in full; before and after a few turns (a note, a data file, the
// world clock), with the settings open, and with an open-loop call paused (its Run and
// Refuse buttons in view). The screenshots are written for a person to look at (see
// shot).
func TestDemo_Layout(t *testing.T) {
	t.Parallel()
	b := browsertest.Shared(t)
	base := serve(t, nil)
	for _, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{
		{"desktop", 1280, 800, false},
		{"phone", 390, 844, true},
	} {
		t.Run(vp.name, func(t *testing.T) {
			p := open(t, b, base)
			require.NoError(t, p.SetViewport(vp.width, vp.height, vp.mobile))
			shot(t, p, vp.name+"-loaded")
			require.Empty(t, eval[[]string](t, p, layoutProbe), "at %d×%d, loaded", vp.width, vp.height)
			eval[any](t, p, `for (const text of ["Remember: buy oat milk", "Read file planets", "Show me the world clock"]) { say(text); await idle(); } return null;`)
			require.Equal(t, []any{"Remember: buy oat milk", map[string]any{"text": "buy oat milk"}, []any{"buy oat milk"}},
				eval[[]any](t, p, `const call = demo.session.history.find((m) => m.role === "tool-call").content[0].value;
					return [demo.session.history[0].content[0].value, call.arguments, [...$$("#notes li")].map((li) => li.textContent)];`),
				"the example's note is the text after the colon")
			require.Equal(t, []any{"read_data_file:", true, false}, eval[[]any](t, p, `const reply = $$("#conversation .msg.assistant")[1];
				return [reply.querySelector("p").textContent, reply.querySelector("pre code").textContent.startsWith('{\n  "planets": ['),
					[...reply.querySelectorAll("p")].some((p) => p.textContent.includes('{"'))];`),
				"a data file's reply shows its JSON formatted, not as one raw line")
			shot(t, p, vp.name+"-turns")
			require.Empty(t, eval[[]string](t, p, layoutProbe), "at %d×%d, after three turns", vp.width, vp.height)
			// The settings (a panel over the chat on a phone) open below the header and
			// inside the viewport.
			got := eval[[]float64](t, p, `if (getComputedStyle($("#settings-toggle")).display !== "none") {
					$("#settings-toggle").click(); await new Promise((r) => setTimeout(r, 300)); }
				const h = $(".top").getBoundingClientRect(), s = $("#sidebar").getBoundingClientRect();
				return [s.top - h.bottom, s.left, document.documentElement.clientWidth - s.right];`)
			require.Len(t, got, 3)
			for i, what := range []string{"below the header", "inside the viewport's left edge", "inside its right edge"} {
				require.GreaterOrEqual(t, got[i], -0.5, "the settings panel is %s: %v", what, got)
			}
			shot(t, p, vp.name+"-settings")
			// The open loop, paused before a call, on a fresh page (a history fed back to a
			// new session is another test's subject): the card's buttons are in view.
			p = open(t, b, base)
			require.NoError(t, p.SetViewport(vp.width, vp.height, vp.mobile))
			buttons := eval[[]float64](t, p, `choose("loop", "open");
				await until(() => $("#mode-label").textContent === "open loop", "open mode");
				$("#pause").checked = true; $("#pause").dispatchEvent(new Event("change"));
				say("What's the time in Tokyo?");
				const card = await until(() => $("#conversation .call.state-paused"), "the call to pause");
				await new Promise((r) => setTimeout(r, 300));
				const conv = $("#conversation").getBoundingClientRect(), vw = document.documentElement.clientWidth;
				return [...card.querySelectorAll(".call-actions button")].flatMap((b) => {
					const r = b.getBoundingClientRect();
					return [r.top - conv.top, conv.bottom - r.bottom, r.left, vw - r.right];
				});`)
			require.Len(t, buttons, 8, "Run this call and Refuse")
			for i, v := range buttons {
				require.GreaterOrEqual(t, v, -0.5, "button %d is out of view (%v)", i/4, buttons)
			}
			require.Empty(t, eval[[]string](t, p, layoutProbe), "at %d×%d, an open-loop call paused", vp.width, vp.height)
			shot(t, p, vp.name+"-open-paused")
		})
	}
}
