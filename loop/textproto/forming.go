package textproto

import (
	"langmodel/internal/jsonv"
	"langmodel/loop"
)

// Calls that form live: while the loop asks (loop.Request.Forming), the wrapper reads
// the call block the model is writing, after each chunk, and sends a loop.Forming as
// soon as the block names a tool offered this step, then again as its arguments grow.
// What the page sees is provisional: the block is still read whole, validated and
// repaired as before, and only the calls that come out of that are calls. A call shown
// forming that does not come out (a block that cannot be read, a candidate that was
// prose after all, a repair round, a tool that is not offered) is sent once more,
// Dropped. Nothing here decides anything, so a hostile block can at worst show a card
// that is then taken back.

// Open returns the call block the parser is reading, while one is open: its format, the
// name a <function=name> tag gave, its body so far (aliasing the parser's buffer: valid
// until the next Feed or Close), and a serial that tells one block from the next.
func (p *Parser) Open() (f Format, name string, body []byte, serial int, ok bool) {
	if p.state != stBlock || p.blk.skipInfo {
		return 0, "", nil, 0, false
	}
	return p.blk.format, p.blk.name, p.buf[p.blk.body:], p.serial, true
}

// FormingCall reads the first call of a block body still being written: the tool's name
// once its string is whole, and the argument text so far (up to the end of the
// arguments' value once it is whole). It reads {"name", "arguments"} ("parameters"
// too, and OpenAI's {"function": {…}} wrapper), the first object of an array of calls,
// and for <function=name> the body itself. name is "" until the block names a tool.
func FormingCall(f Format, tagName string, body []byte) (name string, args []byte) {
	i := jsonv.SkipSpace(body, 0)
	if f == FormatFunction {
		return tagName, valueSoFar(body, i)
	}
	if i < len(body) && body[i] == '[' {
		i = jsonv.SkipSpace(body, i+1)
	}
	if i >= len(body) || body[i] != '{' {
		return "", nil
	}
	return formingObject(body, i)
}

// formingObject reads the members of the object at body[i] that FormingCall wants,
// stopping where the text stops being whole.
func formingObject(body []byte, i int) (name string, args []byte) {
	for i++; ; i++ {
		i = jsonv.SkipSpace(body, i)
		if i >= len(body) || body[i] != '"' {
			return name, args
		}
		key, end, ok := jsonv.String(body, "", i)
		if i = jsonv.SkipSpace(body, end); !ok || i >= len(body) || body[i] != ':' {
			return name, args
		}
		if i = jsonv.SkipSpace(body, i+1); i >= len(body) {
			return name, args
		}
		switch key {
		case "name":
			if body[i] != '"' {
				break
			}
			s, _, ok := jsonv.String(body, "", i)
			if !ok {
				return name, args // not committed yet
			}
			name = s
		case "arguments", "parameters":
			args = valueSoFar(body, i)
		case "function":
			if body[i] == '{' {
				if n, a := formingObject(body, i); n != "" {
					name, args = n, a
				}
			}
		}
		end, whole := jsonv.ValueEnd(body, i)
		if i = jsonv.SkipSpace(body, end); !whole || i >= len(body) || body[i] != ',' {
			return name, args
		}
	}
}

// valueSoFar is the value at body[i]: up to its end when it is whole, else up to where
// it stops being JSON (the end of what there is, while it is only cut short).
func valueSoFar(body []byte, i int) []byte {
	if i >= len(body) {
		return nil
	}
	end, _ := jsonv.ValueEnd(body, i)
	return body[i:min(end, len(body))]
}

// forming is what an attempt has shown of the call forming in the open block.
type forming struct {
	on     bool
	serial int    // the parser's block
	at     int    // the call's place among the step's calls
	name   string // its tool
	shown  int    // bytes of arguments last sent
}

// form sends what is new of the call forming in the open block, after a chunk: its
// name, once it names a tool offered this step, then its arguments as they grow. A
// block that was shown forming and is gone unread (a candidate released as prose) is
// dropped.
func (a *attempt) form() error {
	f, tag, body, serial, ok := a.parser.Open()
	if a.cur.on && (!ok || serial != a.cur.serial) {
		if err := a.dropCurrent(); err != nil {
			return err
		}
	}
	if !ok {
		return nil
	}
	name, args := FormingCall(f, tag, body)
	if name == "" || !a.offers(name) || a.cur.on && a.cur.name == name && a.cur.shown == len(args) {
		return nil
	}
	if a.cur.on && a.cur.name != name { // the block named another tool after all
		if err := a.dropCurrent(); err != nil {
			return err
		}
	}
	if !a.cur.on {
		a.formed = append(a.formed, a.n)
	}
	a.cur = forming{on: true, serial: serial, at: a.n, name: name, shown: len(args)}
	return a.emit(loop.Delta{Forming: &loop.Forming{Index: a.n, Name: name, Arguments: string(args)}})
}

// settle ends the forming call of block b, just read, whose first call that goes on (if
// any) is first: shown whole (as the model wrote it) when it is the call that formed,
// else dropped.
func (a *attempt) settle(b *Block, first *Call) error {
	if !a.cur.on {
		return nil
	}
	if first == nil || first.Name != a.cur.name {
		return a.dropCurrent()
	}
	c := a.cur
	a.cur = forming{}
	if _, args := FormingCall(b.Format, first.Name, []byte(b.Body)); len(args) != c.shown {
		return a.emit(loop.Delta{Forming: &loop.Forming{Index: c.at, Name: c.name, Arguments: string(args)}})
	}
	return nil
}

// dropCurrent takes back the call shown forming in the open block.
func (a *attempt) dropCurrent() error {
	c := a.cur
	a.cur = forming{}
	for i := len(a.formed) - 1; i >= 0; i-- {
		if a.formed[i] == c.at {
			a.formed = append(a.formed[:i], a.formed[i+1:]...)
			break
		}
	}
	return a.emit(loop.Delta{Forming: &loop.Forming{Index: c.at, Name: c.name, Dropped: true}})
}

// dropAll takes back every call the attempt showed forming: a repair asks for them all
// again.
func (a *attempt) dropAll() error {
	for _, at := range a.formed {
		if err := a.emit(loop.Delta{Forming: &loop.Forming{Index: at, Dropped: true}}); err != nil {
			return err
		}
	}
	a.formed, a.cur = nil, forming{}
	return nil
}

// offers reports whether name is a tool offered this step.
func (a *attempt) offers(name string) bool {
	for i := range a.tools {
		if a.tools[i].Name == name {
			return true
		}
	}
	return false
}
