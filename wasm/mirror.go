package wasm

import (
	"bytes"
	"strconv"
	"sync"
	"unsafe"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// Mirror reports what changed in the sessions' histories and usage since its previous
// report, for a page that keeps a copy of both: in worker mode (js/worker.js) the module
// runs in a Worker, and the page's synchronous getters (session.history,
// session.contextUsage) read that copy, since the page cannot wait for the Worker. The
// worker asks for Changes after every run of the module and sends them with the messages
// of that run, so the page's copy is what a query would have answered wherever the page
// can look: after a call settles, inside execute, approve and generate, inside event
// handlers (RATIONALE.md "Why does worker mode keep a copy of the history on the page?").
//
// A change is as small as the history's own sharing allows: messages are never modified
// once appended and are shared between a history, its marks and its views, so the
// messages the page already has are recognised by identity (the same backing array, or
// the same parts), and only the new ones cross. Without a Mirror (the page's own thread)
// nothing of this runs.
//
// A Mirror looks only at the sessions that changed since its last report: each session
// tells the handler when its history or usage changes (loop.Options.OnChange), and the
// handler tells its Mirrors (mirrorChanged), as it does when a session is registered or
// destroyed. A run then costs the mirror the sessions it touched, however many the page
// has open.
type Mirror struct {
	h    *Handler
	sent map[int64]mirrored // session key → what the page was last told

	dirtyMu sync.Mutex
	dirty   map[int64]struct{} // the keys of the sessions changed since the last report
}

type mirrored struct {
	msgs   []session.Message
	usage  int
	totals loop.Totals
	live   bool
	active []string // tool search's active set: it changes with the history
}

// NewMirror returns a Mirror of h's sessions, which the page has not seen yet.
func NewMirror(h *Handler) *Mirror {
	m := &Mirror{h: h, sent: make(map[int64]mirrored), dirty: make(map[int64]struct{})}
	h.mirrorsMu.Lock()
	var ms []*Mirror
	if old := h.mirrors.Load(); old != nil {
		ms = append(ms, *old...)
	}
	ms = append(ms, m)
	h.mirrors.Store(&ms)
	h.mirrorsMu.Unlock()
	h.mu.Lock() // every session is new to it: after the store, so that none is missed
	for k := range h.sessions {
		m.dirty[k] = struct{}{}
	}
	h.mu.Unlock()
	return m
}

// mirrorChanged tells h's Mirrors that session key changed, was registered or was
// destroyed. Without a Mirror it is one pointer load.
func (h *Handler) mirrorChanged(key int64) {
	ms := h.mirrors.Load()
	if ms == nil {
		return
	}
	for _, m := range *ms {
		m.dirtyMu.Lock()
		m.dirty[key] = struct{}{}
		m.dirtyMu.Unlock()
	}
}

// changed is the session's loop.Options.OnChange.
func (p *pageTools) changed() { p.h.mirrorChanged(p.key) }

// Changes returns the changes since the last call, or nil when there are none: a JSON
// array of changes, then, after a "\n", the messages they add, packed (writePacked): a
// text message as a history query packs it (packHistory), its role letter (s, u, a, p),
// its text's length in UTF-16 code units, a colon and the text as it is (newlines too:
// the length frames it); any other message as j, its JSON (the draft-PR form
// session.history exports) and a "\n". Each change is one of
//
//	{"session": key, "usage": n, "spent": {…}, "activeTools": […], "keep": [[from, count], …], "add": count}
//	{"session": key, "gone": true}
//
// keep lists the runs of the page's copy that stay, in order (absent: none), and add how
// many of the messages, taken in order, follow them. spent is session.usage (Usage),
// absent before the first model step; activeTools, tool search's active set (absent when
// the session does not search), which a snapshot keeps. gone: the session was destroyed.
// Sessions are reported in key order. The page keeps each message as it came
// (js/mirror.js, pack.js splitPacked) and builds session.history from them as from a
// packed query: a text is copied, not escaped, and never parsed (RATIONALE.md "Why does
// worker mode keep a copy of the history on the page?"). It is safe from any goroutine,
// but its calls must not overlap.
func (m *Mirror) Changes() []byte {
	m.dirtyMu.Lock()
	keys := make([]int64, 0, len(m.dirty))
	for k := range m.dirty {
		keys = append(keys, k)
	}
	clear(m.dirty) // kept for the next run's marks: a report makes no map
	m.dirtyMu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	// Sorted by insertion: few keys, and slices.Sort on int64 would add 2 KB to the module.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	now := make([]mirrored, len(keys))
	m.h.mu.Lock()
	for i, k := range keys {
		if e := m.h.sessions[k]; e != nil {
			now[i] = mirrored{msgs: e.s.Messages(), usage: e.s.ContextUsage(), totals: e.s.Usage(), live: true, active: e.s.ActiveTools()}
		}
	}
	m.h.mu.Unlock()

	var b []byte
	var lines bytes.Buffer
	for i, k := range keys {
		now := now[i]
		prev, had := m.sent[k]
		if !now.live {
			if !had {
				continue // destroyed before the page saw it, or not registered yet
			}
			delete(m.sent, k)
			b = append(open(b, k), `,"gone":true}`...)
			continue
		}
		if had && now.usage == prev.usage && now.totals == prev.totals && len(now.msgs) == len(prev.msgs) && unsafe.SliceData(now.msgs) == unsafe.SliceData(prev.msgs) {
			continue
		}
		m.sent[k] = now
		runs, next := keepRuns(prev.msgs, now.msgs)
		b = appendNum(open(b, k), `,"usage":`, now.usage)
		if t := now.totals; t.Steps > 0 {
			b = appendNum(appendNum(appendNum(appendNum(b, `,"spent":{"inputTokens":`, t.InputTokens),
				`,"outputTokens":`, t.OutputTokens), `,"steps":`, t.Steps), `,"estimatedSteps":`, t.Estimated)
			b = appendNum(b, `,"cachedTokens":`, t.CachedTokens)
			b = append(b, '}')
		}
		b = appendActive(b, now.active)
		for i, r := range runs {
			sep := `,[`
			if i == 0 {
				sep = `,"keep":[[`
			}
			b = append(appendNum(appendNum(b, sep, r[0]), `,`, r[1]), ']')
		}
		if len(runs) > 0 {
			b = append(b, ']')
		}
		if next < len(now.msgs) {
			b = appendNum(b, `,"add":`, len(now.msgs)-next)
			writePacked(&lines, m.h.redactMessages(now.msgs[next:]), nil, true, &m.h.red)
		}
		b = append(b, '}')
	}
	if b == nil {
		return nil
	}
	b = append(b, ']')
	if !m.h.red.Empty() { // the changes whole: tool names among them
		b = m.h.red.JSON(b)
	}
	return append(b, lines.Bytes()...)
}

// appendActive appends ,"activeTools":[names…] to b, nothing when names is nil (the
// session does not search): the mirror's changes carry it.
// Not marked go:noinline: the compiler does not inline it (it is over the inliner's
// budget); with the mark, the module was the same, byte for byte.
func appendActive(b []byte, names []string) []byte {
	if names == nil {
		return b
	}
	b = append(b, `,"activeTools":[`...)
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonv.AppendString(b, name)
	}
	return append(b, ']')
}

// appendNum appends s and n in decimal to b.
func appendNum(b []byte, s string, n int) []byte {
	return strconv.AppendInt(append(b, s...), int64(n), 10)
}

// open starts the change of session k: it starts the array, or separates the change
// from the previous one.
func open(b []byte, k int64) []byte {
	sep := `,{"session":`
	if b == nil {
		sep = `[{"session":`
	}
	return appendNum(b, sep, int(k))
}

// keepRuns says how the page turns its copy prev into now: the runs of prev that stay,
// as [from, count], in order, followed by now[next:]. Messages are matched by identity
// (sameMessage), so the work is one pass over both, and none when now only extends prev
// in place (a history that grows).
func keepRuns(prev, now []session.Message) (runs [][2]int, next int) {
	if len(prev) == 0 {
		return nil, 0
	}
	if unsafe.SliceData(prev) == unsafe.SliceData(now) {
		n := min(len(prev), len(now))
		if n == 0 {
			return nil, 0
		}
		return [][2]int{{0, n}}, n
	}
	i := 0 // in prev
	for next < len(now) {
		k := i
		for k < len(prev) && !sameMessage(&prev[k], &now[next]) {
			k++
		}
		if k == len(prev) {
			break // now[next] is new: it and all after it are added
		}
		from := k
		for k < len(prev) && next < len(now) && sameMessage(&prev[k], &now[next]) {
			k++
			next++
		}
		runs = append(runs, [2]int{from, k - from})
		i = k
	}
	return runs, next
}

// sameMessage reports whether a and b are the same message: copies of one Message value
// share its parts. Messages are never modified once appended, so the same parts mean the
// same content.
func sameMessage(a, b *session.Message) bool {
	return a.Role == b.Role && a.Prefix == b.Prefix && len(a.Parts) == len(b.Parts) &&
		unsafe.SliceData(a.Parts) == unsafe.SliceData(b.Parts)
}
