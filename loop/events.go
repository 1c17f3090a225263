package loop

import (
	"encoding/json"
	"time"

	"langmodel/session"
)

// EventType names a session event as the page sees it.
type EventType string

const (
	EventToolCall        EventType = "toolcall"        // a call the loop will handle has been requested
	EventToolProgress    EventType = "toolprogress"    // a running tool reported progress
	EventToolResult      EventType = "toolresult"      // a call ended: result or error
	EventContextOverflow EventType = "contextoverflow" // older messages were evicted
)

// Event is one step event. Handlers run on the goroutine that produced the event (tool
// goroutines for progress and results), so they must be safe for concurrent use.
type Event struct {
	Type     EventType
	Call     *session.ToolCall   // toolcall, toolprogress, toolresult
	Tool     *session.Tool       // toolcall: its annotations; nil for an unknown tool
	Progress json.RawMessage     // toolprogress
	Result   *session.ToolResult // toolresult
	Duration time.Duration       // toolresult
	Evicted  int                 // contextoverflow: how many messages the first eviction of the operation removed
}
