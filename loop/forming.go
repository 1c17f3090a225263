package loop

import (
	"strconv"

	"langmodel/session"
)

// Forming is a tool call while the model is still writing it: what a chat page shows as
// a card that appears with the tool's name and fills in with the arguments as they
// arrive, before the call is complete. It is provisional: a call may still be dropped
// (a text-protocol block that cannot be read, a repair round), or come out otherwise
// (the finished call is validated and canonicalised). Only Delta.Call, and the
// toolcall event, say that a call happens; nothing is decided on a Forming.
//
// A model sends one (Delta.Forming) only when Request.Forming asks, that is when the
// page listens for toolcalldelta: nobody listening costs a step nothing.
type Forming struct {
	// Index is the call's place among the calls the step emits (Delta.Call), 0 for its
	// first: the loop gives the finished call the id it gave the forming one.
	Index int
	// CallID is, from the model, the id it gave the call if any; in the event, the id the
	// finished call will have.
	CallID string
	Name   string
	// Arguments is the argument text so far, as the model wrote it (a JSON object cut
	// short, most of the time).
	Arguments string
	// Dropped says the call at Index will not come after all: a page removes its card.
	Dropped bool
}

// formed is the call the loop has seen forming at one place of the step: the id it gave
// it, the tool it names, and its whole argument text while the event showed only part
// of it (Options.Release).
type formed struct{ id, name, held string }

// maxForming bounds the places a model may say it is forming calls at: a step with more
// calls than this shows the rest only when they are complete.
const maxForming = 256

// form takes a model's Forming: gives the call its id (the model's, when it is new to
// the step and the history, else the next call_N) and sends the toolcalldelta event.
// The finished call at the same place, naming the same tool, gets the same id (step).
func (r *run) form(at *[]formed, f *Forming) {
	if f.Index < 0 || f.Index >= maxForming {
		return
	}
	for len(*at) <= f.Index {
		*at = append(*at, formed{})
	}
	c := &(*at)[f.Index]
	e := *f
	if f.Dropped {
		if c.id == "" {
			return
		}
		e.CallID, e.Name, e.Arguments = c.id, c.name, ""
		*c = formed{}
	} else {
		if c.id == "" || c.name != f.Name {
			c.id, c.name = r.formID(*at, f.CallID), f.Name
		}
		e.CallID = c.id
		c.held = ""
		if rel := r.s.opts.Release; rel != nil {
			if n := rel(e.Arguments); n < len(e.Arguments) {
				c.held, e.Arguments = e.Arguments, e.Arguments[:n]
			}
		}
	}
	r.s.emit(Event{Type: EventToolCallDelta, Forming: &e})
}

// formEnd shows whole the arguments the call at place i was last shown with, when
// Options.Release held back their tail: the call is complete (Delta.Call), so nothing
// more can complete a secret there.
func (r *run) formEnd(at []formed, i int) {
	if i < len(at) && at[i].held != "" {
		c := &at[i]
		r.s.emit(Event{Type: EventToolCallDelta, Forming: &Forming{Index: i, CallID: c.id, Name: c.name, Arguments: c.held}})
		c.held = ""
	}
}

// formID is the id of a call that starts forming: the model's if no call of this step
// or of the history has it, else the session's next.
func (r *run) formID(at []formed, id string) string {
	s := r.s
	taken := func(id string) bool {
		for _, c := range at {
			if c.id == id {
				return true
			}
		}
		return s.hist.HasCallID(id)
	}
	for id == "" || taken(id) {
		s.nextID++
		id = "call_" + strconv.Itoa(s.nextID)
	}
	return id
}

// formedIDs gives each finished call the id its forming call was shown with, where the
// call at that place names the same tool.
func formedIDs(calls []session.ToolCall, at []formed) {
	for i := range calls {
		if i < len(at) && at[i].id != "" && at[i].name == calls[i].Name {
			calls[i].CallID = at[i].id
		}
	}
}
