package textproto

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
)

// Format is the shape a call block was written in.
type Format uint8

const (
	FormatFence     Format = iota + 1 // ```tool_call … ``` (the canonical format)
	FormatJSONFence                   // ```json … ``` holding a call object
	FormatTag                         // <tool_call> … </tool_call> (Hermes, Qwen)
	FormatFunction                    // <function=name>{…}</function> (Llama 3.1)
	FormatBare                        // the whole response is one call object, a list of them, or a Python call list
	FormatPhi                         // <|tool_call|> … <|/tool_call|> (Phi-4-mini)
	FormatMistral                     // [TOOL_CALLS][…] or [TOOL_CALLS]name[ARGS]{…} (Mistral)
	FormatPythonTag                   // <|python_tag|>{…}; {…} (Llama 3.x)
	FormatDeepSeek                    // <｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜> (DeepSeek R1, V3)
	FormatPythonic                    // <|tool_call_start|>[f(a=1)]<|tool_call_end|> (LFM2)
	FormatGemma                       // <|tool_call>call:name{…}<tool_call|> (Gemma 4)
)

func (f Format) String() string {
	switch f {
	case FormatFence:
		return "tool_call fence"
	case FormatJSONFence:
		return "json fence"
	case FormatTag:
		return "<tool_call> tag"
	case FormatFunction:
		return "<function=…> tag"
	case FormatBare:
		return "bare JSON"
	case FormatPhi:
		return "<|tool_call|> tag"
	case FormatMistral:
		return "[TOOL_CALLS]"
	case FormatPythonTag:
		return "<|python_tag|>"
	case FormatDeepSeek:
		return "DeepSeek tool calls"
	case FormatPythonic:
		return "<|tool_call_start|> list"
	case FormatGemma:
		return "<|tool_call> call"
	}
	return "unknown format"
}

// Call is one call read from a block. Arguments is compact JSON as the model gave it
// (a string holding JSON is unwrapped); it may still not be an object, which the
// wrapper's validation reports.
type Call struct {
	Name      string
	Arguments jsonv.RawMessage
	params    []param // Qwen3-Coder's parameters as written (families.go)
}

// Block is a call block: one or more calls, or, for a block opened by an explicit call
// delimiter that could not be read, the reason in Err (Calls is then empty).
type Block struct {
	Format Format
	Raw    string // the block as written, delimiters included
	Body   string // what stood between the delimiters
	Name   string // the name the opener gave: <function=name>, Mistral's name[ARGS]
	Calls  []Call
	Err    error
}

// Piece is one output of the Parser: visible text, or a call block.
type Piece struct {
	Text  string
	Block *Block
}

// The delimiters. A fence opener is a run of three or more backticks followed by an info
// word; closers are runs of three or more backticks.
const (
	wordToolCall = "tool_call"
	wordJSON     = "json"
	tagOpen      = "<tool_call>"
	tagClose     = "</tool_call>"
	funcOpen     = "<function="
	funcClose    = "</function>"
	maxFuncName  = 64
	mistralOpen  = "[TOOL_CALLS]"
)

// opener is a family's call delimiter that opens a block, and the one that closes it.
type opener struct {
	open, close string
	format      Format
}

// openers are the delimiters that start with '<' (the Mistral one starts with '[', a
// <function=name> tag is read apart). Those sharing a prefix are told apart by the byte
// after it, so the order does not matter.
var openers = [...]opener{
	{tagOpen, tagClose, FormatTag},
	{"<|tool_call|>", "<|/tool_call|>", FormatPhi},
	{"<|python_tag|>", "<|eom_id|>", FormatPythonTag},
	{dsCallsBegin, dsCallsEnd, FormatDeepSeek},
	{"<|tool_call_start|>", "<|tool_call_end|>", FormatPythonic},
	{"<|tool_call>", "<tool_call|>", FormatGemma},
}

// delimiters of f: its opener and its closer.
func delimiters(f Format) (open, close string) {
	for _, o := range openers {
		if o.format == f {
			return o.open, o.close
		}
	}
	return "", ""
}

type state uint8

const (
	stText  state = iota // prose
	stCode               // inside an ordinary ``` code block: a backtick run closes it
	stBlock              // inside a call block (or a candidate one)
)

// Parser reads a model's streamed output and splits it into visible text and call
// blocks. Feed it each text delta as it arrives, then Close it at the end of the step.
//
// It holds back only what could still be the start of a delimiter (a backtick run, a
// '<' that may begin <tool_call>, </tool_call> or <function=), an incomplete UTF-8
// sequence at the end of a chunk, leading whitespace (the response may be bare JSON),
// and the inside of blocks. No delimiter reaches the text, nor any part of one while it
// may still become one (at the end of the stream, "<tool_" is just text): a block opened
// by ```tool_call, <tool_call> or <function=name> always comes out as a Block,
// well-formed or not, and a stray </tool_call> is dropped. Candidate blocks (```json
// fences, a response that starts with '{') that turn out not to be calls are released as
// text, unchanged and in order, and re-read as text, so any delimiter inside them is
// still recognised. The result does not depend on how the stream is split into chunks.
//
// The zero value is ready to use. A Parser is not safe for concurrent use.
type Parser struct {
	// NoBareJSON makes a response that starts with '{' plain text: set it when the
	// answer itself must be JSON (a responseConstraint), so it is never taken for a call.
	NoBareJSON bool
	// Strict draws the line between a call and prose as content read from a backend
	// with native tools needs it (Read): inside an ordinary code block nothing is a
	// call, and a ```json fence is an ordinary code block.
	Strict bool

	buf   []byte
	start int // first byte not yet emitted or consumed
	state state
	begun bool // a non-space byte has been read: the response is no longer bare JSON
	blk   block
	out   []Piece
	// text released but not yet in out: buf[textStart:textEnd]
	textStart, textEnd int
	// the chunk being fed, at buf[chunkAt:]: text that lies in it is sliced from it
	// rather than copied
	chunk   string
	chunkAt int
	// memos, so that held input is not read again on every chunk: the last backtick run
	// read (at runAt, runLen long) and the leading whitespace read (lead bytes from start)
	runAt, runLen int
	lead          int
	serial        int // blocks entered: tells one open block from the next (Open)
}

// block is the state of the block being read. Indices are into Parser.buf.
type block struct {
	format   Format
	open     int // the opener (leading whitespace, for bare JSON)
	body     int // the first byte after the opener
	scan     int // the next byte to read
	name     string
	skipInfo bool // a fence's info word is still being read
	raw      bool // not JSON (Python, Gemma's or XML syntax): only quotes and brackets are tracked
	q        byte // in a raw body, the quote of the string being read
	shape    bool // a bare Python call list: its first name is read, up to the '('
	named    bool // Mistral's: what follows [TOOL_CALLS] is read (a name and [ARGS], or JSON)
	// A small JSON lexer: enough to know where strings are, so that delimiters inside
	// them are data, and where the first top-level value ends.
	inStr, esc bool
	broken     bool // something that cannot be JSON was seen
	depth      int
	first      int // the first non-space body byte, or -1
	firstEnd   int // the end of the first top-level value, or -1
}

// Feed reads the next chunk of the stream and returns what can be released: text and
// complete blocks, in stream order. The slice is reused by the next Feed or Close.
func (p *Parser) Feed(chunk string) []Piece {
	p.out = p.out[:0]
	p.compact()
	p.chunk, p.chunkAt = chunk, len(p.buf)
	p.buf = append(p.buf, chunk...)
	p.run(false)
	p.chunk = ""
	return p.out
}

// Close ends the stream and returns what was held: trailing text, and a block left
// open, which is read as it stands (a call if its JSON is complete, as when a server
// stops at the closing delimiter; a malformed Block otherwise). The Parser is then
// ready for a new stream.
func (p *Parser) Close() []Piece {
	p.out = p.out[:0]
	p.run(true)
	*p = Parser{NoBareJSON: p.NoBareJSON, Strict: p.Strict, buf: p.buf[:0], out: p.out}
	return p.out
}

// compact drops what has been emitted, keeping held bytes at the front of buf.
func (p *Parser) compact() {
	d := p.start
	if d == 0 {
		return
	}
	n := copy(p.buf, p.buf[d:])
	p.buf = p.buf[:n]
	p.start = 0
	p.runAt -= d
	if p.state == stBlock {
		b := &p.blk
		b.open -= d
		b.body -= d
		b.scan -= d
		if b.first >= 0 {
			b.first -= d
		}
		if b.firstEnd >= 0 {
			b.firstEnd -= d
		}
	}
}

func (p *Parser) run(eof bool) {
	for {
		var again bool
		if p.state == stBlock {
			again = p.inBlock(eof)
		} else {
			again = p.inText(eof)
		}
		if !again {
			p.flush()
			return
		}
	}
}

// emit releases buf[p.start:to] as text and moves start to skip. Text is gathered as a
// range of buf and becomes a string when something else is output, or at the end of run.
func (p *Parser) emit(to, skip int) {
	if to > p.start {
		if p.textEnd != p.start || p.textEnd == p.textStart {
			p.flush()
			p.textStart = p.start
		}
		p.textEnd = to
	}
	p.start = skip
}

func (p *Parser) flush() {
	if p.textEnd > p.textStart {
		var s string
		if p.chunk != "" && p.textStart >= p.chunkAt {
			s = p.chunk[p.textStart-p.chunkAt : p.textEnd-p.chunkAt]
		} else {
			s = string(p.buf[p.textStart:p.textEnd])
		}
		p.out = append(p.out, Piece{Text: s})
	}
	p.textStart, p.textEnd = 0, 0
}

// inText reads prose or an ordinary code block. It returns true when the state changed
// and false when it needs more input (or, at eof, has released everything).
func (p *Parser) inText(eof bool) bool {
	buf := p.buf
	if p.state == stText && !p.begun && !p.NoBareJSON {
		j := p.start + p.lead
		j = jsonv.SkipSpace(buf, j)
		p.lead = j - p.start
		if j == len(buf) {
			if eof {
				p.emit(j, j)
			}
			return false
		}
		if buf[j] == '[' {
			// A list of calls: JSON objects, or Python calls (LFM2); anything else that
			// starts with '[' is text.
			k := jsonv.SkipSpace(buf, j+1)
			py, known := pyListStart(buf[k:])
			if !known && !eof {
				return false
			}
			p.begun = true
			if py || k < len(buf) && buf[k] == '{' {
				p.enter(FormatBare, p.start, j, "")
				if py {
					p.blk.raw, p.blk.shape, p.blk.depth, p.blk.first, p.blk.scan = true, true, 1, j, k
				}
				return true
			}
		}
		p.begun = true
		if buf[j] == '{' {
			p.enter(FormatBare, p.start, j, "")
			return true
		}
	}
	i := p.start
	for {
		k := i + indexSpecial(buf[i:])
		if k < i {
			end := len(buf)
			if !eof {
				end = completeRunes(buf, i, end)
			}
			p.emit(end, end)
			return false
		}
		if buf[k] == '<' || buf[k] == '[' {
			if p.Strict && p.state == stCode {
				i = k + 1 // in a code block of content, nothing is a call
				continue
			}
			kind, n, name, f := matchAngle(buf[k:], eof)
			switch kind {
			case angleNeedMore:
				p.emit(k, k)
				return false
			case angleNone:
				i = k + 1
				continue
			case angleTagClose:
				p.emit(k, k+n) // a stray closer is dropped
				return true
			case angleTagOpen:
				p.emit(k, k)
				p.enter(f, k, k+n, "")
				return true
			case angleFuncOpen:
				p.emit(k, k)
				p.enter(FormatFunction, k, k+n, name)
				return true
			}
		}
		r := p.backticks(k)
		if k+r == len(buf) && !eof {
			p.emit(k, k)
			return false
		}
		if r < 3 {
			i = k + r
			continue
		}
		switch matchWord(buf, k+r, wordToolCall, eof) {
		case wordNeedMore:
			p.emit(k, k)
			return false
		case wordYes:
			p.emit(k, k)
			p.enter(FormatFence, k, k+r+len(wordToolCall), "")
			return true
		}
		if p.state == stCode { // the closing fence of a code block
			p.emit(k+r, k+r)
			p.state = stText
			return true
		}
		json := wordNo
		if !p.Strict { // content's ```json fence is an ordinary code block
			json = matchWord(buf, k+r, wordJSON, eof)
		}
		switch json {
		case wordNeedMore:
			p.emit(k, k)
			return false
		case wordYes:
			j := k + r + len(wordJSON)
			if j == len(buf) && !eof {
				p.emit(k, k)
				return false
			}
			if j == len(buf) || !isIdent(buf[j]) {
				p.emit(k, k)
				p.enter(FormatJSONFence, k, j, "")
				return true
			}
		}
		p.emit(k+r, k+r) // an ordinary code block opens; its info word is text
		p.state = stCode
		return true
	}
}

func (p *Parser) enter(f Format, open, body int, name string) {
	p.state = stBlock
	p.serial++
	p.blk = block{format: f, open: open, body: body, scan: body, name: name,
		skipInfo: f == FormatFence, raw: f == FormatPythonic || f == FormatGemma, first: -1, firstEnd: -1}
}

func (b *block) soft() bool { return b.format == FormatJSONFence || b.format == FormatBare }

// inBlock reads the inside of a block.
func (p *Parser) inBlock(eof bool) bool {
	b := &p.blk
	buf := p.buf
	i := b.scan
	if b.raw {
		return p.inRaw(eof)
	}
	if b.format == FormatMistral && !b.named {
		// [TOOL_CALLS] then JSON (a list of calls), or a name then [ARGS] then JSON.
		j := jsonv.SkipSpace(buf, i)
		k := j
		for k < len(buf) && isName(buf[k]) {
			k++
		}
		if k == len(buf) && !eof {
			return false
		}
		if k > j {
			if rest := buf[k:]; len(rest) < len(mistralArgs) && hasPrefixOrNeed(rest, mistralArgs) && !eof {
				return false
			} else if !hasPrefixOrNeed(rest, mistralArgs) || len(rest) < len(mistralArgs) {
				return p.finish(k, k, false) // a word that is no call
			}
			b.name = string(buf[j:k])
			i = k + len(mistralArgs)
			b.body, b.scan = i, i
		}
		b.named = true
	}
	if b.skipInfo {
		for i < len(buf) && isIdent(buf[i]) {
			i++
		}
		if i == len(buf) && !eof {
			b.scan = i
			return false
		}
		b.skipInfo = false
		b.body = i
	}
	for ; i < len(buf); i++ {
		c := buf[i]
		if b.inStr {
			switch {
			case b.esc:
				b.esc = false
			case c == '\\':
				b.esc = true
			case c == '"':
				b.inStr = false
				if b.depth == 0 && p.valueEnd(i+1) {
					return p.release()
				}
				if b.depth == 0 && b.format == FormatMistral {
					return p.finish(i+1, i+1, true)
				}
			case c == '\n': // JSON strings hold no raw newline: the JSON is broken
				b.inStr, b.broken = false, true
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '`', '<':
			if c == '<' && b.first < 0 && (b.format == FormatTag || b.format == FormatFunction) {
				b.raw, b.scan = true, i // Qwen3-Coder's XML: <function=…>, <parameter=…>
				return true
			}
			kind, n := p.closer(i, eof)
			switch kind {
			case closeNeedMore:
				b.scan = i
				return false
			case closeEnd:
				return p.finish(i, i+n, true)
			case closeInterrupt:
				return p.finish(i, i, false)
			}
			b.broken = true // not JSON; a wrapper inside a tag is stripped later
		}
		if b.first < 0 {
			b.first = i
		}
		if b.soft() {
			if b.broken || b.firstEnd >= 0 && b.format == FormatBare {
				return p.release()
			}
			if b.depth == 0 && c != '{' && c != '[' {
				return p.release() // a top-level scalar is no call
			}
		}
		switch c {
		case '"':
			b.inStr = true
		case '{', '[':
			b.depth++
		case '}', ']':
			b.depth--
			if b.depth < 0 {
				b.depth, b.broken = 0, true
				if b.soft() {
					return p.release()
				}
			} else if b.depth == 0 && p.valueEnd(i+1) {
				return p.release()
			} else if b.depth == 0 && b.format == FormatMistral {
				return p.finish(i+1, i+1, true) // Mistral's calls end with their JSON
			}
		}
	}
	b.scan = i
	if !eof {
		return false
	}
	if b.format == FormatBare {
		if b.firstEnd < 0 || b.depth != 0 || b.inStr {
			return p.release()
		}
		return p.finish(len(buf), len(buf), true)
	}
	return p.finish(len(buf), len(buf), false)
}

// inRaw reads the inside of a block that is not JSON: a family's delimited block up to
// its closer, or a bare Python call list (LFM2's), whose quotes and brackets are tracked,
// up to its end; it must then be the whole response.
func (p *Parser) inRaw(eof bool) bool {
	b := &p.blk
	buf := p.buf
	i := b.scan
	for ; i < len(buf); i++ {
		c := buf[i]
		if b.format != FormatBare {
			if c != '<' {
				continue
			}
			switch kind, n := p.closer(i, eof); kind {
			case closeNeedMore:
				b.scan = i
				return false
			case closeEnd:
				return p.finish(i, i+n, true)
			case closeInterrupt:
				return p.finish(i, i, false)
			}
			continue
		}
		switch {
		case b.q != 0:
			switch {
			case b.esc:
				b.esc = false
			case c == '\\':
				b.esc = true
			case c == b.q:
				b.q = 0
			}
		case b.shape: // the first call's name, up to its '('
			switch {
			case c == '(':
				b.shape = false
				b.depth++
			case !isName(c):
				return p.release()
			}
		case c == '\'' || c == '"':
			b.q = c
		case c == '(' || c == '[' || c == '{':
			b.depth++
		case c == ')' || c == ']' || c == '}':
			if b.depth--; b.depth < 0 {
				return p.release()
			}
			if b.depth == 0 {
				b.firstEnd = i + 1
			}
		case jsonv.IsSpace(c):
		case b.depth == 0:
			return p.release() // more after the list: it is not the whole response
		}
	}
	b.scan = i
	if !eof {
		return false
	}
	if b.format == FormatBare && (b.firstEnd < 0 || b.depth != 0) {
		return p.release()
	}
	return p.finish(len(buf), len(buf), b.format == FormatBare)
}

// valueEnd notes the end of a top-level value and says whether a candidate block must be
// released because its first value is not a call.
func (p *Parser) valueEnd(end int) bool {
	b := &p.blk
	if b.firstEnd >= 0 {
		return false
	}
	b.firstEnd = end
	return b.soft() && !callShaped(p.buf[b.first:end])
}

// release gives up a candidate block: it was not a call, so it is text after all.
func (p *Parser) release() bool {
	b := p.blk
	p.blk = block{}
	if b.format == FormatJSONFence {
		// The opener is text, and the body is read again as an ordinary code block.
		p.emit(b.body, b.body)
		p.state = stCode
		return true
	}
	p.state = stText // begun is set: the '{' is ordinary text now
	return true
}

// finish ends the block: its body is buf[b.body:bodyEnd], the whole block buf[b.open:end].
func (p *Parser) finish(bodyEnd, end int, closed bool) bool {
	b := p.blk
	body := string(p.buf[b.body:bodyEnd])
	calls, err := readBody(b.format, b.name, body)
	if b.soft() && err != nil {
		return p.release()
	}
	if err != nil && !closed {
		err = sfmt.Errorf("%w, and %w", ErrNotClosed, err)
	}
	raw := string(p.buf[b.open:end])
	if b.format == FormatBare {
		raw = strings.TrimSpace(raw)
	}
	p.flush()
	p.out = append(p.out, Piece{Block: &Block{Format: b.format, Raw: raw, Body: body, Name: b.name, Calls: calls, Err: err}})
	p.start = end
	p.state = stText
	p.blk = block{}
	return true
}

type closeKind uint8

const (
	closeNone closeKind = iota
	closeNeedMore
	closeEnd       // the block's closer
	closeInterrupt // the opener of a new block: this one ends, unclosed
)

// closer says whether buf[i] (a '`' or '<' outside a JSON string) begins the current
// block's closer, the opener of another block, or neither.
func (p *Parser) closer(i int, eof bool) (closeKind, int) {
	buf := p.buf
	switch p.blk.format {
	case FormatFence, FormatJSONFence:
		if buf[i] != '`' {
			return closeNone, 0
		}
		r := p.backticks(i)
		if i+r == len(buf) && !eof {
			return closeNeedMore, 0
		}
		if r < 3 {
			return closeNone, 0
		}
		switch matchWord(buf, i+r, wordToolCall, eof) {
		case wordNeedMore:
			return closeNeedMore, 0
		case wordYes:
			return closeInterrupt, 0
		}
		return closeEnd, r
	case FormatFunction:
		return matchCloser(buf[i:], funcClose, funcOpen, eof)
	case FormatMistral, FormatBare:
		return closeNone, 0
	}
	open, close := delimiters(p.blk.format)
	return matchCloser(buf[i:], close, open, eof)
}

func matchCloser(s []byte, end, interrupt string, eof bool) (closeKind, int) {
	if hasPrefixOrNeed(s, end) {
		if len(s) < len(end) {
			if eof {
				return closeNone, 0
			}
			return closeNeedMore, 0
		}
		return closeEnd, len(end)
	}
	if hasPrefixOrNeed(s, interrupt) {
		if len(s) < len(interrupt) {
			if eof {
				return closeNone, 0
			}
			return closeNeedMore, 0
		}
		return closeInterrupt, 0
	}
	return closeNone, 0
}

// hasPrefixOrNeed reports whether s starts with w, or is a proper prefix of it.
func hasPrefixOrNeed(s []byte, w string) bool {
	n := min(len(s), len(w))
	return string(s[:n]) == w[:n]
}

type angleKind uint8

const (
	angleNone angleKind = iota
	angleNeedMore
	angleTagOpen
	angleTagClose
	angleFuncOpen
)

// matchAngle reads what a '<' (or a '[') in text begins: a family's opener (and its
// format), a stray </tool_call>, or a <function=name> tag.
func matchAngle(s []byte, eof bool) (angleKind, int, string, Format) {
	need := false
	try := func(w string) bool {
		if !hasPrefixOrNeed(s, w) {
			return false
		}
		if len(s) < len(w) {
			need = true
			return false
		}
		return true
	}
	if s[0] == '[' {
		if try(mistralOpen) {
			return angleTagOpen, len(mistralOpen), "", FormatMistral
		}
	} else {
		for _, o := range openers {
			if try(o.open) {
				return angleTagOpen, len(o.open), "", o.format
			}
		}
		if try(tagClose) {
			return angleTagClose, len(tagClose), "", 0
		}
		if hasPrefixOrNeed(s, funcOpen) && len(s) <= len(funcOpen) {
			need = true
		} else if hasPrefixOrNeed(s, funcOpen) {
			j := len(funcOpen)
			for j < len(s) && j-len(funcOpen) <= maxFuncName && isName(s[j]) {
				j++
			}
			switch {
			case j-len(funcOpen) > maxFuncName:
			case j == len(s):
				need = true
			case s[j] == '>' && j > len(funcOpen):
				return angleFuncOpen, j + 1, string(s[len(funcOpen):j]), FormatFunction
			}
		}
	}
	if need && !eof {
		return angleNeedMore, 0, "", 0
	}
	return angleNone, 0, "", 0
}

type wordMatch uint8

const (
	wordNo wordMatch = iota
	wordYes
	wordNeedMore
)

func matchWord(buf []byte, at int, w string, eof bool) wordMatch {
	s := buf[at:]
	if !hasPrefixOrNeed(s, w) {
		return wordNo
	}
	if len(s) < len(w) {
		if eof {
			return wordNo
		}
		return wordNeedMore
	}
	return wordYes
}

// indexSpecial is bytes.IndexAny(s, "`<["), without building a set for each short chunk.
func indexSpecial(s []byte) int {
	for i, c := range s {
		if c == '`' || c == '<' || c == '[' {
			return i
		}
	}
	return -1
}

// backticks returns the length of the backtick run at buf[i]. A run that reached the end
// of buf is remembered, so that a long run arriving in many chunks is read once.
func (p *Parser) backticks(i int) int {
	n := 0
	if p.runAt == i {
		n = p.runLen
	}
	for i+n < len(p.buf) && p.buf[i+n] == '`' {
		n++
	}
	p.runAt, p.runLen = i, n
	return n
}

// completeRunes returns end, or less so that buf[from:end] does not end inside a UTF-8
// sequence (the JS side would turn each half into U+FFFD).
func completeRunes(buf []byte, from, end int) int {
	for k := end - 1; k >= from && k >= end-utf8.UTFMax; k-- {
		if utf8.RuneStart(buf[k]) {
			if !utf8.FullRune(buf[k:end]) {
				return k
			}
			break
		}
	}
	return end
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isName(c byte) bool { return isIdent(c) || c == '.' || c == ':' }

// readBody reads a block's body as calls.
func readBody(f Format, name, body string) ([]Call, error) {
	s := stripWrapper(strings.TrimSpace(body))
	switch {
	case f == FormatDeepSeek:
		return readDeepSeek(body)
	case f == FormatPythonic || f == FormatGemma:
		return readLit(s, f == FormatGemma)
	case f == FormatBare && strings.HasPrefix(s, "["):
		if py, _ := pyListStart([]byte(s[1:])); py {
			return readLit(s, false)
		}
	case f == FormatTag && strings.HasPrefix(s, funcOpen):
		return readXML("", s)
	case f == FormatFunction && strings.HasPrefix(s, "<"):
		return readXML(name, s)
	case f == FormatMistral && name != "":
		f = FormatFunction // name[ARGS]{…}: the body is the arguments
	}
	if f == FormatFunction {
		if s == "" {
			s = "{}"
		}
		args, err := compact([]byte(s))
		if err != nil {
			return nil, err
		}
		return []Call{{Name: name, Arguments: args}}, nil
	}
	if s == "" {
		return nil, ErrEmptyBlock
	}
	data := []byte(s)
	if s[0] == '{' { // the usual case: one call object
		if c, ok := readCall(data); ok {
			call, err := c.call()
			if err != nil {
				return nil, err
			}
			return []Call{call}, nil
		}
	}
	// Values one after another, as json.Decoder read them: each a call or an array of calls.
	var calls []Call
	for {
		v, rest, err := nextValue(data)
		if err == io.EOF {
			return calls, nil
		}
		if err != nil {
			return nil, sfmt.Errorf("%w: %v", ErrBadJSON, err)
		}
		data = rest
		if f == FormatPythonTag { // Llama's calls one after another, separated by ';'
			data = bytes.TrimLeft(data, " \t\r\n;")
		}
		if v[0] != '[' {
			c, err := toCall(v)
			if err != nil {
				return nil, err
			}
			calls = append(calls, c)
			continue
		}
		n := len(calls)
		for it := range jsonv.Elements(v, 0) {
			c, err := toCall(it)
			if err != nil {
				return nil, err
			}
			calls = append(calls, c)
		}
		if len(calls) == n {
			return nil, ErrNotCall // an empty array
		}
	}
}

// stripWrapper removes a fence or tag pair the model put inside another block.
func stripWrapper(s string) string {
	switch {
	case strings.HasPrefix(s, "```"):
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || !strings.HasSuffix(s, "```") || len(s) < nl+4 {
			return s
		}
		return strings.TrimSpace(s[nl+1 : len(s)-3])
	case strings.HasPrefix(s, tagOpen):
		s = strings.TrimPrefix(s[len(tagOpen):], "\n")
		return strings.TrimSpace(strings.TrimSuffix(s, tagClose))
	}
	return s
}
