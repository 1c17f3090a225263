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
// arguments' value once it is whole, or where it stops being JSON). It reads {"name",
// "arguments"} ("parameters" too), the first object of an array of calls, and for
// <function=name> and Mistral's name[ARGS] (tagName) the body itself; name is "" until
// the block names a tool. In the syntaxes that are not JSON (families.go) the arguments
// so far are the members written whole, as JSON, the object closed once the call is. Keys and
// names are compared as written (a tool's name has nothing to escape).
func FormingCall(f Format, tagName string, body []byte) (name string, args []byte) {
	i := jsonv.SkipSpace(body, 0)
	xml := i < len(body) && body[i] == '<'
	switch {
	case f == FormatDeepSeek:
		return formingDeepSeek(body)
	case f == FormatPythonic || f == FormatGemma:
		return formingLit(f, body)
	case f == FormatBare && i < len(body) && body[i] == '[':
		if py, _ := pyListStart(body[i+1:]); py {
			return formingLit(FormatPythonic, body)
		}
	case f == FormatTag && xml:
		return formingXML("", body)
	case f == FormatFunction && xml:
		return formingXML(tagName, body)
	case f == FormatMistral && tagName != "":
		f = FormatFunction // name[ARGS]{…}
	}
	if f == FormatFunction {
		return tagName, valueSoFar(body, i)
	}
	if i < len(body) && body[i] == '[' {
		i = jsonv.SkipSpace(body, i+1)
	}
	if i >= len(body) || body[i] != '{' {
		return "", nil
	}
	for i++; ; i++ {
		key := jsonv.SkipSpace(body, i)
		end, whole := jsonv.ValueEnd(body, key)
		if i = jsonv.SkipSpace(body, end); !whole || body[key] != '"' || i >= len(body) || body[i] != ':' {
			return name, args
		}
		i = jsonv.SkipSpace(body, i+1)
		v := valueSoFar(body, i)
		switch k := string(body[key:end]); {
		case k == `"name"` && len(v) > 1 && v[0] == '"' && v[len(v)-1] == '"':
			name = string(v[1 : len(v)-1])
		case k == `"arguments"` || k == `"parameters"`:
			args = v
		}
		if i = jsonv.SkipSpace(body, i+len(v)); i >= len(body) || body[i] != ',' {
			return name, args
		}
	}
}

// valueSoFar is the value at body[i]: up to its end when it is whole, else up to where
// it stops being JSON (the end of what there is, while it is only cut short).
func valueSoFar(body []byte, i int) []byte {
	end, _ := jsonv.ValueEnd(body, i)
	return body[min(i, len(body)):min(end, len(body))]
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
// block shown forming that is gone unread (a candidate released as prose), or that
// names another tool after all, is dropped.
func (a *attempt) form() error {
	f, tag, body, serial, ok := a.parser.Open()
	var name string
	var args []byte
	if ok {
		name, args = FormingCall(f, tag, body)
	}
	if a.cur.on && (!ok || serial != a.cur.serial || name != "" && name != a.cur.name) {
		if err := a.drop(a.cur.at); err != nil {
			return err
		}
	}
	if name == "" || !a.offers(name) || a.cur.on && a.cur.shown == len(args) {
		return nil
	}
	a.cur = forming{on: true, serial: serial, at: a.n, name: name, shown: len(args)}
	return a.show(loop.Forming{Index: a.n, Name: name, Arguments: string(args)})
}

// settle ends the forming call of block b, just read, whose first call that goes on (if
// any) is first: shown whole (as the model wrote it) when it is the call that formed,
// else dropped.
func (a *attempt) settle(b *Block, first *Call) error {
	c := a.cur
	if !c.on {
		return nil
	}
	if first == nil || first.Name != c.name {
		return a.drop(c.at)
	}
	a.cur = forming{}
	if _, args := FormingCall(b.Format, b.Name, []byte(b.Body)); len(args) != c.shown {
		return a.show(loop.Forming{Index: c.at, Name: c.name, Arguments: string(args)})
	}
	return nil
}

// drop takes back the call shown forming at place at. A repair takes back every place
// the attempt kept a call at: the loop ignores a drop where nothing formed.
func (a *attempt) drop(at int) error {
	a.cur = forming{}
	return a.show(loop.Forming{Index: at, Dropped: true})
}

func (a *attempt) show(f loop.Forming) error { return a.emit(loop.Delta{Forming: &f}) }

// offers reports whether name is a tool offered this step.
func (a *attempt) offers(name string) bool {
	for i := range a.tools {
		if a.tools[i].Name == name {
			return true
		}
	}
	return false
}
