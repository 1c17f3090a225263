package relin

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMatch: what RegExp.prototype.test with the "u" flag answers, row by row (checked
// against V8 when written).
func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name, pattern, input string
		want                 bool
	}{
		{"unanchored literal", "bc", "abcd", true},
		{"literal absent", "bd", "abcd", false},
		{"empty pattern", "", "", true},
		{"^ anchors at the start", "^b", "ab", false},
		{"$ anchors at the end", "a$", "ab", false},
		{"^…$ whole input", "^ab$", "ab", true},
		{"$ is not before a final newline", "a$", "a\n", false},
		{"alternation", "^(cat|dog)$", "dog", true},
		{"alternation, empty branch", "^a(|b)c$", "ac", true},
		{"star", "^a*$", "", true},
		{"plus needs one", "^a+$", "", false},
		{"question", "^ab?c$", "ac", true},
		{"{n}", "^a{3}$", "aaa", true},
		{"{n} too many", "^a{3}$", "aaaa", false},
		{"{n,}", "^a{2,}$", "aaaaa", true},
		{"{n,} too few", "^a{2,}$", "a", false},
		{"{n,m} inside", "^a{2,3}$", "aaa", true},
		{"{n,m} over", "^a{2,3}$", "aaaa", false},
		{"{0}", "^ab{0}c$", "ac", true},
		{"lazy forms match the same", "^a+?b*?c??$", "aab", true},
		{"dot is not a line terminator", "^.$", "\n", false},
		{"dot takes \\r? no", "^.$", "\r", false},
		{"dot takes U+2028? no", "^.$", "\u2028", false},
		{"dot takes a code point", "^.$", "😀", true},
		{"dot takes \\v", "^.$", "\v", true},
		{"\\d", `^\d+$`, "0123", true},
		{"\\d is ASCII", `^\d$`, "٣", false},
		{"\\D", `^\D$`, "x", true},
		{"\\w", `^\w+$`, "a_Z9", true},
		{"\\W", `^\W$`, "-", true},
		{"\\s takes NBSP", `^\s$`, "\u00a0", true},
		{"\\s takes U+3000", `^\s$`, "\u3000", true},
		{"\\s takes BOM", `^\s$`, "\ufeff", true},
		{"\\S", `^\S$`, " ", false},
		{"\\b", `\bcat\b`, "a cat!", true},
		{"\\b inside a word", `\bcat\b`, "concat", false},
		{"\\B", `\Bcat`, "concat", true},
		{"\\b at the ends", `^\b\w+\b$`, "word", true},
		{"class", "^[a-c]+$", "abcab", true},
		{"class miss", "^[a-c]$", "d", false},
		{"negated class", "^[^a-c]$", "d", true},
		{"negated class takes a newline", "^[^a]$", "\n", true},
		{"class with escapes", `^[\d\-x]+$`, "1-x", true},
		{"class with \\b (backspace)", `^[\b]$`, "\b", true},
		{"class dash last", "^[a-]$", "-", true},
		{"class dash first", "^[-a]$", "-", true},
		{"empty class matches nothing", "[]", "a", false},
		{"[^] matches anything", "^[^]$", "\n", true},
		{"class of \\s negated", `^[^\s]$`, "a", true},
		{"class \\W inside", `^[\W]$`, "a", false},
		{"escapes", `^\t\n\v\f\r\0$`, "\t\n\v\f\r\x00", true},
		{"\\cJ", `^\cJ$`, "\n", true},
		{"\\x41", `^\x41$`, "A", true},
		{"\\u0041", `^\u0041$`, "A", true},
		{"\\u{1F600}", `^\u{1F600}$`, "😀", true},
		{"surrogate pair escape", `^\uD83D\uDE00$`, "😀", true},
		{"class with code points", `^[\u{1F600}-\u{1F64F}]$`, "🙂", true},
		{"identity escapes", `^\^\$\\\.\*\+\?\(\)\[\]\{\}\|\/$`, `^$\.*+?()[]{}|/`, true},
		{"non-capturing group", "^(?:ab)+$", "abab", true},
		{"named group", "^(?<year>\\d{4})-\\d\\d$", "2026-11", true},
		{"nested quantifiers", "^(a+)+$", "aaaa", true},
		{"nested quantifiers, no match", "^(a+)+$", "aaab", false},
		{"empty loop", "^(a*)*b$", "b", true},
		{"empty loop, no match", "^(a*)*b$", "c", false},
		{"multi-byte input", "é+", "caféé", true},
		{"invalid UTF-8 is U+FFFD", "^.$", "\xff", true},
		{"date", `^\d{4}-\d{2}-\d{2}$`, "2026-11-25", true},
		{"email-ish", `^[^@\s]+@[^@\s]+\.[a-z]{2,}$`, "a@b.org", true},
		{"empty groups repeated", "^((){20000}){20000}a$", "a", true},
		{"assertion in a loop", "^(^|a)*b$", "aab", true},
		{"email-ish, no", `^[^@\s]+@[^@\s]+\.[a-z]{2,}$`, "a@b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			re, err := Compile(tc.pattern)
			require.NoError(t, err)
			require.Equal(t, tc.want, re.MatchString(tc.input))
		})
	}
}

// TestCompile_Errors: malformed patterns (a SyntaxError for new RegExp(src, "u")) and
// ECMA-262 syntax refused because it cannot run in linear time, with the exact message.
func TestCompile_Errors(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		unsupported   bool
		msg           string
	}{
		{"lookahead", "^(?=.*\\d)", true, "lookahead (?= is not supported (it cannot be matched in linear time) at offset 1"},
		{"negative lookahead", "a(?!b)", true, "lookahead (?! is not supported (it cannot be matched in linear time) at offset 1"},
		{"lookbehind", "(?<=a)b", true, "lookbehind (?<= is not supported (it cannot be matched in linear time) at offset 0"},
		{"negative lookbehind", "(?<!a)b", true, "lookbehind (?<! is not supported (it cannot be matched in linear time) at offset 0"},
		{"backreference", "(a)\\1", true, "the backreference \\1 is not supported (it cannot be matched in linear time) at offset 3"},
		{"named backreference", "(?<x>a)\\k<x>", true, "the backreference \\k is not supported (it cannot be matched in linear time) at offset 7"},
		{"modifiers", "(?i:a)", true, "the group syntax (?i is not supported (it cannot be matched in linear time) at offset 0"},
		{"property escape", "\\p{L}", true, "Unicode property escapes (\\p{…}) are not supported at offset 0"},
		{"huge count", "a{100000}", true, "the pattern compiles to more than 20000 instructions (counted repetitions are copied): it is not supported at offset 0"},
		{"nested counts", "(a{200}){200}", true, "the pattern compiles to more than 20000 instructions (counted repetitions are copied): it is not supported at offset 0"},
		{"deep nesting", strings.Repeat("(", 1001) + strings.Repeat(")", 1001), true, "groups nested more than 1000 deep are not supported at offset 1000"},
		{"unterminated group", "a(", false, "unterminated group at offset 1"},
		{"unmatched )", "a)", false, "unmatched ) at offset 1"},
		{"unterminated class", "[a", false, "unterminated character class at offset 0"},
		{"dangling star", "*a", false, "nothing to repeat before * at offset 0"},
		{"double quantifier", "a**", false, "nothing to repeat before * at offset 2"},
		{"quantified assertion", "^*", false, "nothing to repeat: ^ is an assertion at offset 1"},
		{"quantified \\b", "\\b+", false, "nothing to repeat: \\b is an assertion at offset 2"},
		{"lone {", "a{", false, "lone { (write \\{) at offset 1"},
		{"lone { with text", "a{x}", false, "lone { (write \\{) at offset 1"},
		{"lone }", "a}", false, "lone } (write \\}) at offset 1"},
		{"lone ]", "a]", false, "lone ] (write \\]) at offset 1"},
		{"leading {n}", "{2}", false, "nothing to repeat before { at offset 0"},
		{"count out of order", "a{3,2}", false, "numbers out of order in {} quantifier at offset 1"},
		{"range out of order", "[z-a]", false, "range out of order in character class at offset 2"},
		{"class escape in a range", "[\\d-z]", false, "a class escape cannot bound a range at offset 3"},
		{"trailing backslash", "a\\", false, "\\ at the end of the pattern at offset 1"},
		{"identity escape of a letter", "\\a", false, "invalid escape \\a at offset 0"},
		{"\\- outside a class", "\\-", false, "invalid escape \\- at offset 0"},
		{"identity escape of a letter outside ASCII whose low byte is t", "\\Ŵ", false, "invalid escape \\Ŵ at offset 0"},
		{"identity escape of a letter outside ASCII whose low byte is |", "\\ż", false, "invalid escape \\ż at offset 0"},
		{"bad \\x", "\\xZ1", false, "invalid escape \\x at offset 0"},
		{"bad \\u", "\\u12", false, "invalid Unicode escape at offset 0"},
		{"\\u{} out of range", "\\u{110000}", false, "invalid Unicode escape at offset 0"},
		{"\\0 then digit", "\\01", false, "invalid escape \\0 followed by a digit at offset 0"},
		{"bad group name", "(?<1a>x)", false, "invalid group name at offset 0"},
		{"empty group name", "(?<>x)", false, "invalid group name at offset 0"},
		{"group name with a dash", "(?<a->x)", false, "invalid group name at offset 0"},
		{"unterminated group name", "(?<ab", false, "invalid group name at offset 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.pattern)
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tc.unsupported, e.Unsupported)
			require.Equal(t, tc.msg, err.Error())
		})
	}
}

// TestMatch_Linear: the patterns that take a backtracking engine exponential time answer
// at once (a timed budget would be flaky; BenchmarkMatch_Linear measures).
func TestMatch_Linear(t *testing.T) {
	for _, p := range []string{"^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "(x+x+)+y", "^(\\w+\\s?)*$"} {
		re, err := Compile(p)
		require.NoError(t, err)
		require.False(t, re.MatchString(strings.Repeat("a", 10000)+"!"), p)
	}
}

// FuzzAgreesWithGoRegexp: on the syntax both dialects share and read alike, relin and
// Go's RE2 agree on every input. Patterns are built from a small alphabet so that the
// fuzzer reaches quantifiers, classes and groups; where either refuses the pattern (each
// has spellings the other lacks) the case is skipped.
func FuzzAgreesWithGoRegexp(f *testing.F) {
	for _, s := range []string{"^(a+)+$", "a|b*", "[a-c]{2,3}", "(?:ab)?c", "\\d\\w\\b", "[^ab]+$", "a{0,2}?b"} {
		f.Add(s, "aab1 b\nc")
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		for _, c := range pattern {
			if !strings.ContainsRune("ab1 ()|*+?{}[]^$.\\-,0123dwbsntDWBS:<>", c) {
				return
			}
		}
		if strings.Contains(pattern, "\\b") && strings.Contains(pattern, "[") || strings.Contains(pattern, "[^") {
			return // [\b] is a backspace in ECMA; [^…] takes \n in ECMA, not in Go without (?s)
		}
		re, err := Compile(pattern)
		if err != nil {
			return
		}
		goRe, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		input = strings.Map(func(r rune) rune {
			if strings.ContainsRune("ab1 \n-", r) {
				return r
			}
			return 'a'
		}, input)
		require.Equal(t, goRe.MatchString(input), re.MatchString(input), "pattern %q on %q", pattern, input)
	})
}

// BenchmarkMatch_Linear: time per byte stays flat from 1 KB to 1 MB for the pattern a
// backtracking engine needs 2^n steps for. cpu-ns/B is the process's CPU time per byte
// (wall time swings with the load of a shared machine; CPU time shows the flat line).
func BenchmarkMatch_Linear(b *testing.B) {
	for _, p := range []string{"^(a+)+$", `^[\w.+-]+@[\w-]+\.\w{2,}$`} {
		re, err := Compile(p)
		require.NoError(b, err)
		for _, size := range []int{1 << 10, 1 << 14, 1 << 17, 1 << 20} {
			s := strings.Repeat("a", size-1) + "!"
			b.Run(p+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(size))
				c0 := cpuTime()
				for b.Loop() {
					if re.MatchString(s) {
						b.Fatal("matched")
					}
				}
				if c0 >= 0 {
					b.ReportMetric(float64(cpuTime()-c0)/float64(b.N*size), "cpu-ns/B")
				}
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MB"
	}
	return strconv.Itoa(n>>10) + "KB"
}

// TestLeafKindsAreOps: emit turns a leaf node into the instruction of the same number.
func TestLeafKindsAreOps(t *testing.T) {
	require.Equal(t, []op{opSet, opBegin, opEnd, opWordB, opNotWordB}, []op{op(kSet), op(kBegin), op(kEnd), op(kWordB), op(kNotWordB)})
}
