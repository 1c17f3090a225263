package wasm

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/loop"
)

// maxPartialArguments bounds the argument text that toolcalldelta closes into an object
// for the page: each delta reads the whole text so far, so past this a long call's
// events carry the text alone (arguments null), and its cost stays linear.
const maxPartialArguments = 64 << 10

// formingDetail appends the members of a toolcalldelta's detail to the object b holds
// open: {callID, name, argumentsText, arguments, dropped}. arguments is the text so far
// closed into an object (jsonv.Complete), checked again, so that nothing the model
// wrote can break the message it travels in; null when it is not one yet.
func formingDetail(b []byte, f *loop.Forming) []byte {
	b = appendField(b, "callID", jsonv.AppendStringKeepHTML(nil, f.CallID))
	b = appendField(b, "name", jsonv.AppendStringKeepHTML(nil, f.Name))
	b = appendField(b, "argumentsText", jsonv.AppendStringKeepHTML(nil, f.Arguments))
	var obj []byte
	if n := len(f.Arguments); n > 0 && n <= maxPartialArguments {
		if o, ok := jsonv.Complete(nil, []byte(f.Arguments)); ok && o[0] == '{' && jsonv.Valid(o) {
			obj = o
		}
	}
	b = appendField(b, "arguments", obj)
	return appendField(b, "dropped", strconv.AppendBool(nil, f.Dropped))
}
