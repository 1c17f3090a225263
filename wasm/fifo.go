package wasm

import "sync"

// fifo is an unbounded queue. push never blocks, which is what lets a js.FuncOf callback
// hand a message to the engine (it must never block: a js.FuncOf callback that blocks
// freezes the page's JS and ends in "all goroutines are asleep - deadlock!").
type fifo[T any] struct {
	mu     sync.Mutex
	items  []T
	spare  []T // an empty array to queue into after the next take
	closed bool
}

func newFIFO[T any]() *fifo[T] { return &fifo[T]{} }

// push appends v; it reports false once the queue is closed.
func (q *fifo[T]) push(v T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.items = append(q.items, v)
	return true
}

// take removes and returns every item, in order; nil when there are none.
func (q *fifo[T]) take() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.items
	q.items, q.spare = q.spare, nil
	if len(batch) == 0 {
		return nil
	}
	return batch
}

// done hands back a batch take returned, once its items are handled: its array holds
// the next items, so that a message does not cost an allocation to queue.
func (q *fifo[T]) done(batch []T) {
	if cap(batch) > 64 {
		return // a burst: let it go
	}
	clear(batch)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.spare == nil && !q.closed {
		q.spare = batch[:0]
	}
}

func (q *fifo[T]) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) == 0
}

func (q *fifo[T]) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.items = nil
}
