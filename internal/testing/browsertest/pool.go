package browsertest

// pool.go: a page prepared once and lent to one test at a time, for suites of many short
// rows that each need the same page (the module fetched, compiled and installed): opening
// a page and installing the module take 0.5 to 2.5 s, a row's own script tens of
// milliseconds.

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// Pool lends one page of a URL, prepared once by a prelude, to one test at a time; the
// others wait their turn. A test whose row fails gets the page's console in its log, and
// the page is closed rather than lent again: a failure never leaves its page to the next
// row, which gets a fresh one. The page closes when the test that made the pool ends.
//
// It is one page, not one per parallel test, because a page that is not the front tab is
// not run as one: Firefox throttles a background tab's timers, and two pages lent in turn
// left rows waiting 30 s for an engine's next chunk.
type Pool struct {
	b       *Browser
	owner   testing.TB
	url     string
	prelude string

	mu   sync.Mutex // held by the test the page is lent to
	page *Page      // nil until the first test, and after a failure
}

// NewPool returns a pool of pages of url, each prepared by running prelude once (see
// Page.Eval), owned by tb: its page closes when tb ends. Use it from the test whose
// subtests (parallel or not) play the rows.
func (b *Browser) NewPool(tb testing.TB, url, prelude string) *Pool {
	return &Pool{b: b, owner: tb, url: url, prelude: prelude}
}

// Eval runs body in the pool's page, as Page.Eval does, once no other test holds it. When
// t has failed by then, or body did not end (a timeout), it logs the page's console to t
// and closes the page.
func (pl *Pool) Eval(t *testing.T, body string, out any) error {
	t.Helper()
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.page == nil {
		p, err := pl.b.open(pl.owner, pl.url)
		if err != nil {
			return err
		}
		if err := p.Eval(context.Background(), pl.prelude, nil); err != nil {
			pl.drop(t, p)
			return err
		}
		pl.page = p
	}
	err := pl.page.Eval(t.Context(), body, out)
	if _, thrown := err.(*JSError); (err != nil && !thrown) || t.Failed() {
		pl.drop(t, pl.page)
		pl.page = nil
	}
	return err
}

// drop logs p's console to t and closes p.
func (pl *Pool) drop(t *testing.T, p *Page) {
	t.Logf("browsertest: %s console of the pooled page of %s:\n\t%s", p.Engine, p.url, strings.Join(p.Console(), "\n\t"))
	p.Close()
}
