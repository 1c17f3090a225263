package session

import (
	"errors"
	"strings"
)

// Language tags in expectedInputs and expectedOutputs are BCP 47 tags, validated and
// canonicalized with ECMA-402's algorithms, as the spec says ("Dependencies"): a tag must
// be a structurally valid Unicode BCP 47 locale identifier (UTS 35), which is what
// `new Intl.Locale(tag)` accepts, and is written in canonical case. Written by hand:
// golang.org/x/text/language would cost the module far more than these few hundred
// lines (see RATIONALE.md "Why are language tags checked by hand, and which languages does each backend serve?").

// ErrLanguageTag is the rule an invalid tag breaks: a RangeError, as Intl.Locale throws.
var ErrLanguageTag = errors.New("invalid language tag")

// CanonicalLanguageTag returns tag in canonical form (language lower case, script title
// case, region upper case, variants sorted, extensions sorted by singleton, everything
// else lower case), or a RangeError when tag is not structurally valid. Aliases (such as
// "iw" for "he") are not replaced: that needs CLDR's alias tables. It works on bytes,
// without strings.Split, ToUpper or sort (each costs the module kilobytes).
func CanonicalLanguageTag(tag string) (string, error) {
	if c, ok := canonicalTag(tag); ok {
		return c, nil
	}
	return "", Errorf(KindRange, ErrLanguageTag, "%q", tag)
}

func canonicalTag(tag string) (string, bool) {
	// Lower-cased subtags of 1 to 8 ASCII letters and digits.
	b := []byte(tag)
	var subs []string
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && b[i] != '-' {
			if c := b[i]; c >= 'A' && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			} else if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				return "", false
			}
			continue
		}
		if n := i - start; n < 1 || n > 8 {
			return "", false
		}
		subs = append(subs, string(b[start:i]))
		start = i + 1
	}
	// unicode_language_subtag: alpha{2,3} | alpha{5,8}; "root" is not a tag here.
	if l := len(subs[0]); !isAlpha(subs[0]) || l == 4 || l < 2 || subs[0] == "root" {
		return "", false
	}
	out := subs[0]
	i := 1
	if i < len(subs) && len(subs[i]) == 4 && isAlpha(subs[i]) { // script
		out += "-" + string(subs[i][0]-'a'+'A') + subs[i][1:]
		i++
	}
	if i < len(subs) && isRegion(subs[i]) {
		r := []byte(subs[i])
		for k, c := range r {
			if c >= 'a' {
				r[k] = c - 'a' + 'A'
			}
		}
		out += "-" + string(r)
		i++
	}
	v := i
	for ; i < len(subs) && isVariant(subs[i]); i++ {
		for _, w := range subs[v:i] {
			if w == subs[i] {
				return "", false // a duplicate variant
			}
		}
	}
	variants := subs[v:i]
	insertionSort(variants, func(s string) string { return s })
	for _, w := range variants {
		out += "-" + w
	}

	// Extensions, each one singleton and its subtags, then a private-use part.
	var exts []string
	var seen uint64 // singletons so far, one bit each
	for i < len(subs) {
		s := subs[i]
		if len(s) != 1 {
			return "", false
		}
		j := i + 1
		if s == "x" {
			j = len(subs)
			if j == i+1 {
				return "", false
			}
		} else {
			bit := uint64(1) << (s[0] - 'a') // a letter: bits 0 to 25
			if s[0] <= '9' {
				bit = uint64(1) << (s[0] - '0' + 26) // a digit: bits 26 to 35
			}
			if seen&bit != 0 {
				return "", false // a duplicate singleton
			}
			seen |= bit
			for j < len(subs) && len(subs[j]) > 1 {
				j++
			}
			if !validExtension(s, subs[i+1:j]) {
				return "", false
			}
		}
		ext := s
		for _, w := range subs[i+1 : j] {
			ext += "-" + w
		}
		exts = append(exts, ext)
		i = j
	}
	insertionSort(exts, func(e string) string {
		if e[0] == 'x' {
			return "~" // private use last
		}
		return e[:1]
	})
	for _, e := range exts {
		out += "-" + e
	}
	return out, true
}

// insertionSort sorts a few strings by key, stably.
func insertionSort(a []string, key func(string) string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && key(a[j]) < key(a[j-1]); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// validExtension checks the subtags after a singleton other than x (UTS 35).
func validExtension(singleton string, body []string) bool {
	if len(body) == 0 {
		return false
	}
	switch singleton {
	case "u":
		for _, s := range body {
			// a key (alphanum alpha), or (length 3 to 8) an attribute before any key or a
			// type after one
			if !(len(s) == 2 && isAlpha(s[1:])) && len(s) < 3 {
				return false
			}
		}
		return true
	case "t":
		// tlang? (tfield)*: tlang is a language id; tfield = tkey (alpha digit) then
		// one or more alphanum{3,8}.
		j := 0
		if l := len(body[0]); isAlpha(body[0]) && (l == 2 || l == 3 || l >= 5) {
			j = 1
			if j < len(body) && len(body[j]) == 4 && isAlpha(body[j]) {
				j++
			}
			if j < len(body) && isRegion(body[j]) {
				j++
			}
			for j < len(body) && isVariant(body[j]) {
				j++
			}
		}
		for j < len(body) {
			if len(body[j]) != 2 || !isAlpha(body[j][:1]) || !isDigit(body[j][1:]) {
				return false
			}
			j++
			n := j
			for j < len(body) && len(body[j]) >= 3 {
				j++
			}
			if j == n {
				return false
			}
		}
		return true
	default:
		for _, s := range body {
			if len(s) < 2 {
				return false
			}
		}
		return true
	}
}

// isRegion: alpha{2} | digit{3}.
func isRegion(s string) bool {
	return (len(s) == 2 && isAlpha(s)) || (len(s) == 3 && isDigit(s))
}

// isVariant: alphanum{5,8} | digit alphanum{3}.
func isVariant(s string) bool {
	return len(s) >= 5 || (len(s) == 4 && isDigit(s[:1]))
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// LanguageOf returns the language subtag of a canonical tag: "zh" for "zh-Hant-TW".
func LanguageOf(tag string) string {
	if i := strings.IndexByte(tag, '-'); i >= 0 {
		return tag[:i]
	}
	return tag
}

// CommonLanguage reports whether the language of a canonical tag is one a general
// language model can be expected to serve: a language with an ISO 639-1 code, or one of
// a few widely written languages that have only a three-letter code. It is what a backend
// that does not know its model's languages (an OpenAI-compatible server, a page's own
// generate, the browser's model before it answers itself) serves; "unk", "und" or "zxx"
// are not served. See RATIONALE.md "Why are language tags checked by hand, and which languages does each backend serve?".
func CommonLanguage(tag string) bool {
	l := LanguageOf(tag)
	switch len(l) {
	case 2:
		return strings.Contains(iso6391, l+" ")
	case 3:
		return strings.Contains(common3, l+" ")
	}
	return false
}

// The ISO 639-1 codes, and common languages with only an ISO 639-2/3 code.
const (
	iso6391 = "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
		"da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz " +
		"ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt " +
		"lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt " +
		"qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to " +
		"tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu "
	common3 = "ast ceb chr ckb fil gsw haw hmn kok mai mni nso sat yue "
)
