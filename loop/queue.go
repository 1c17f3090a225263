package loop

// queue runs a session's operations one at a time in the order they were submitted, as the
// explainer requires of prompt() and append(). Each operation takes a turn synchronously
// when submitted (so the binding, which reads the page's requests in order on one
// goroutine, fixes the order), then waits for the previous turn to end.
type queue struct {
	tail chan struct{} // closed when the last submitted turn ends; guarded by Session.mu
}

type turn struct {
	prev   <-chan struct{}
	done   chan struct{}
	passed bool // prev has been observed closed
}

// take appends a turn to the queue. Callers hold Session.mu.
func (q *queue) take() *turn {
	t := &turn{prev: q.tail, done: make(chan struct{})}
	q.tail = t.done
	return t
}

// wait blocks until every earlier turn has ended, or ctx is done.
func (t *turn) wait(ctx Context) error {
	if t.prev == nil {
		t.passed = true
		return nil
	}
	select {
	case <-t.prev: // the usual case, without making ctx's Done channel
		t.passed = true
		return nil
	default:
	}
	select {
	case <-t.prev:
		t.passed = true
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// end lets the next turn run. A turn that gave up waiting (aborted while queued) still
// ends only after its predecessor, so that order is kept for the turns behind it.
func (t *turn) end() {
	if !t.passed && t.prev != nil {
		<-t.prev
	}
	close(t.done)
}
