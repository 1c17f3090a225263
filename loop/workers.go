package loop

import "sync"

// spawn runs fn on a goroutine of its own: one of the pool's idle goroutines when one
// waits, else a new one. A new goroutine starts with the smallest stack, and an
// operation grows it again, copying it at each doubling; a goroutine of the pool keeps
// the stack its last operation grew. Under GOOS=js, where copying a stack and every
// goroutine switch cost more than natively, a new goroutine per prompt and per tool call
// was a tenth of a closed-loop step in the page (RATIONALE.md "How far is the module
// from the peer, and what was tried?").
func spawn(fn func()) {
	select {
	case work <- fn:
	default:
		go worker(fn)
	}
}

// maxIdle is how many goroutines the pool keeps waiting: enough for a page's usual
// handful of sessions at once; a burst beyond it leaves no goroutines behind.
const maxIdle = 8

var (
	work    = make(chan func()) // unbuffered: a send succeeds only when a worker waits
	idleMu  sync.Mutex
	idleNow int
)

func worker(fn func()) {
	for {
		fn()
		idleMu.Lock()
		if idleNow >= maxIdle {
			idleMu.Unlock()
			return
		}
		idleNow++
		idleMu.Unlock()
		fn = <-work
		idleMu.Lock()
		idleNow--
		idleMu.Unlock()
	}
}
