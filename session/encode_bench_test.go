package session

import (
	"strconv"
	"testing"
)

// BenchmarkMarshalMessages: a 10,000-message text history exported whole, as
// session.history reads it and worker mode's mirror sends it to the page's copy once.
func BenchmarkMarshalMessages(b *testing.B) {
	msgs := make([]Message, 10000)
	for i := range msgs {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		msgs[i] = TextMessage(role, "message "+strconv.Itoa(i)+" of the history")
	}
	b.ReportAllocs()
	for b.Loop() {
		MarshalMessages(msgs)
	}
}
