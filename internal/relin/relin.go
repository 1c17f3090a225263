package relin

import (
	"strconv"
	"unicode/utf8"
)

// Regexp is a compiled pattern. It is safe for concurrent use.
type Regexp struct {
	src   string
	prog  []inst
	begin bool // the program starts with ^: no match can start after position 0
}

type op uint8

const (
	opSet      op = iota // consume one code point in set, go to pc+1
	opSplit              // go to x and y
	opJmp                // go to x
	opMatch              // the pattern matched
	opBegin              // assert: at the start of the input
	opEnd                // assert: at the end of the input
	opWordB              // assert: \b
	opNotWordB           // assert: \B
)

type inst struct {
	op   op
	x, y int
	set  []rune
}

// Compile parses an ECMA-262 pattern (Unicode mode, no flags) into a Regexp. Errors are
// *Error values.
func Compile(src string) (*Regexp, error) {
	n, err := parse(src)
	if err != nil {
		return nil, err
	}
	if measure(n) > maxInsts {
		return nil, &Error{Unsupported: true, Msg: "the pattern compiles to more than " + strconv.Itoa(maxInsts) + " instructions (counted repetitions are copied): it is not supported"}
	}
	c := &compiler{prog: make([]inst, 0, n.size+1)}
	c.emit(n)
	c.add(opMatch, 0)
	return &Regexp{src: src, prog: c.prog, begin: c.prog[0].op == opBegin}, nil
}

// String returns the source pattern.
func (re *Regexp) String() string { return re.src }

type compiler struct{ prog []inst }

// add appends an instruction and returns its index.
func (c *compiler) add(o op, x int) int {
	c.prog = append(c.prog, inst{op: o, x: x})
	return len(c.prog) - 1
}

// measure sets the size of n and everything below it, saturating past maxInsts.
func measure(n *node) int {
	sum := 0
	switch n.kind {
	case kCat, kAlt:
		for _, s := range n.subs {
			sum += measure(s)
		}
		if n.kind == kAlt {
			sum += 2 * (len(n.subs) - 1) // a split and a jump for each but the last
		}
	case kRepeat:
		s := measure(n.subs[0])
		switch {
		case s == 0: // an empty body repeated is empty: emit skips it
		case n.max < 0:
			sum = mul(n.min, s) + s + 2
		default:
			sum = mul(n.min, s) + mul(n.max-n.min, s+1)
		}
	default:
		sum = 1
	}
	n.size = min(sum, maxInsts+1)
	return n.size
}

func mul(a, b int) int {
	if a > 0 && b > (maxInsts+1)/a {
		return maxInsts + 1
	}
	return a * b
}

// emit appends n's instructions (measure has bounded how many there are).
func (c *compiler) emit(n *node) {
	switch n.kind {
	case kCat:
		for _, s := range n.subs {
			c.emit(s)
		}
	case kAlt:
		// split L1, next; L1: a; jmp end; next: split L2, next'; … the last alternative
		var jumps []int
		last := len(n.subs) - 1
		for _, s := range n.subs[:last] {
			split := c.add(opSplit, len(c.prog)+1)
			c.emit(s)
			jumps = append(jumps, c.add(opJmp, 0))
			c.prog[split].y = len(c.prog)
		}
		c.emit(n.subs[last])
		for _, j := range jumps {
			c.prog[j].x = len(c.prog)
		}
	case kRepeat:
		sub := n.subs[0]
		if sub.size == 0 {
			return
		}
		for i := 0; i < n.min; i++ {
			c.emit(sub)
		}
		// unbounded, L: split body, out; body; jmp L. Bounded, the optional copies nest:
		// split body, out; body; split body, out; body …
		var splits []int
		for i := n.min; i < n.max || n.max < 0 && i == n.min; i++ {
			splits = append(splits, c.add(opSplit, len(c.prog)+1))
			c.emit(sub)
		}
		if n.max < 0 {
			c.add(opJmp, splits[0])
		}
		for _, s := range splits {
			c.prog[s].y = len(c.prog)
		}
	default: // kSet and the assertions, numbered as their instructions
		c.add(op(n.kind), 0)
		c.prog[len(c.prog)-1].set = n.set
	}
}

// MatchString reports whether s contains a match of the pattern, as RegExp.prototype.test
// does. It runs every possible match at once (a Pike VM): time O(len(s) × program size),
// memory O(program size), never backtracking.
func (re *Regexp) MatchString(s string) bool {
	n := len(re.prog)
	cur, nxt := newSet(n), newSet(n)
	stack := make([]int, 0, 16)
	prev := rune(-1) // no character before the start
	r, w := decode(s, 0)
	for i := 0; ; {
		if i == 0 || !re.begin { // a match may start here
			if re.close(cur, &stack, 0, prev, r) {
				return true
			}
		}
		if w == 0 || len(cur.dense) == 0 && re.begin {
			return false
		}
		nr, nw := decode(s, i+w)
		for _, pc := range cur.dense {
			if in := &re.prog[pc]; in.op == opSet && contains(in.set, r) {
				if re.close(nxt, &stack, pc+1, r, nr) {
					return true
				}
			}
		}
		cur, nxt = nxt, cur
		nxt.clear()
		i += w
		prev, r, w = r, nr, nw
	}
}

// decode returns the code point at s[i:] and its width, or (-1, 0) at the end.
func decode(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(s[i:])
}

// close adds pc and everything reachable from it without consuming input (given the
// characters before and after the position) to set; it reports whether Match is reached.
func (re *Regexp) close(set *sparse, stack *[]int, pc int, before, after rune) bool {
	st := append((*stack)[:0], pc)
	matched := false
	for len(st) > 0 && !matched {
		pc := st[len(st)-1]
		st = st[:len(st)-1]
		if set.has(pc) {
			continue
		}
		set.add(pc)
		in := &re.prog[pc]
		switch in.op {
		case opMatch:
			matched = true
		case opJmp:
			st = append(st, in.x)
		case opSplit:
			st = append(st, in.y, in.x)
		case opBegin:
			if before < 0 {
				st = append(st, pc+1)
			}
		case opEnd:
			if after < 0 {
				st = append(st, pc+1)
			}
		case opWordB, opNotWordB:
			if (isWord(before) != isWord(after)) == (in.op == opWordB) {
				st = append(st, pc+1)
			}
		}
	}
	*stack = st[:0] // keep the grown stack for the next call
	return matched
}

func isWord(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_'
}

// contains reports whether r is in the set (binary search over its pairs).
func contains(set []rune, r rune) bool {
	lo, hi := 0, len(set)/2
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < set[2*m]:
			hi = m
		case r > set[2*m+1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// sparse is a set of program counters with O(1) add, test and clear, iterated in
// insertion order (Briggs and Torczon).
type sparse struct {
	dense  []int
	sparse []int
}

func newSet(n int) *sparse { return &sparse{dense: make([]int, 0, n), sparse: make([]int, n)} }

func (s *sparse) has(pc int) bool {
	i := s.sparse[pc]
	return i < len(s.dense) && s.dense[i] == pc
}

func (s *sparse) add(pc int) {
	s.sparse[pc] = len(s.dense)
	s.dense = append(s.dense, pc)
}

func (s *sparse) clear() { s.dense = s.dense[:0] }
