package session

import (
	"errors"
	"sort"
	"strings"
)

// Language tags in expectedInputs and expectedOutputs are BCP 47 tags, validated and
// canonicalized with ECMA-402's algorithms, as the spec says ("Dependencies"): a tag must
// be a structurally valid Unicode BCP 47 locale identifier (UTS 35), which is what
// `new Intl.Locale(tag)` accepts, and is written in canonical case. Written by hand:
// golang.org/x/text/language would cost the module far more than these few hundred
// lines (see RATIONALE.md "Why are language tags checked by hand?").

// ErrLanguageTag is the rule an invalid tag breaks: a RangeError, as Intl.Locale throws.
var ErrLanguageTag = errors.New("invalid language tag")

// CanonicalLanguageTag returns tag in canonical form (language lower case, script title
// case, region upper case, variants sorted, extensions sorted by singleton, everything
// else lower case), or a RangeError when tag is not structurally valid. Aliases (such as
// "iw" for "he") are not replaced: that needs CLDR's alias tables.
func CanonicalLanguageTag(tag string) (string, error) {
	bad := func() (string, error) { return "", Errorf(KindRange, ErrLanguageTag, "%q", tag) }
	if tag == "" {
		return bad()
	}
	for i := 0; i < len(tag); i++ {
		if c := tag[i]; c >= 0x80 {
			return bad() // ASCII only: ToLower must not turn a Kelvin sign into a "k"
		}
	}
	subs := strings.Split(strings.ToLower(tag), "-")
	for _, s := range subs {
		if s == "" || len(s) > 8 || !isAlnum(s) {
			return bad()
		}
	}
	i := 0
	// unicode_language_subtag: alpha{2,3} | alpha{5,8}; "root" is not a tag here.
	if l := len(subs[0]); !isAlpha(subs[0]) || l == 4 || l < 2 || subs[0] == "root" {
		return bad()
	}
	out := []string{subs[0]}
	i++
	if i < len(subs) && len(subs[i]) == 4 && isAlpha(subs[i]) { // script
		out = append(out, strings.ToUpper(subs[i][:1])+subs[i][1:])
		i++
	}
	if i < len(subs) && ((len(subs[i]) == 2 && isAlpha(subs[i])) || (len(subs[i]) == 3 && isDigit(subs[i]))) { // region
		out = append(out, strings.ToUpper(subs[i]))
		i++
	}
	var variants []string
	for ; i < len(subs) && isVariant(subs[i]); i++ {
		for _, v := range variants {
			if v == subs[i] {
				return bad() // a duplicate variant
			}
		}
		variants = append(variants, subs[i])
	}
	sort.Strings(variants)
	out = append(out, variants...)

	// Extensions, then a private-use part.
	type ext struct {
		singleton string
		subs      []string
	}
	var exts []ext
	seen := map[string]bool{}
	for i < len(subs) {
		s := subs[i]
		if len(s) != 1 {
			return bad()
		}
		i++
		if s == "x" {
			if i == len(subs) {
				return bad()
			}
			exts = append(exts, ext{"x", subs[i:]})
			i = len(subs)
			break
		}
		if seen[s] {
			return bad() // a duplicate singleton
		}
		seen[s] = true
		start := i
		for i < len(subs) && len(subs[i]) > 1 {
			i++
		}
		body := subs[start:i]
		if !validExtension(s, body) {
			return bad()
		}
		exts = append(exts, ext{s, body})
	}
	sort.SliceStable(exts, func(a, b int) bool {
		if exts[a].singleton == "x" || exts[b].singleton == "x" {
			return exts[b].singleton == "x" && exts[a].singleton != "x"
		}
		return exts[a].singleton < exts[b].singleton
	})
	for _, e := range exts {
		out = append(out, e.singleton)
		out = append(out, e.subs...)
	}
	return strings.Join(out, "-"), nil
}

// validExtension checks the subtags after a singleton other than x (UTS 35).
func validExtension(singleton string, body []string) bool {
	if len(body) == 0 {
		return false
	}
	switch singleton {
	case "u":
		// (attribute)* (keyword)*, at least one; attribute alphanum{3,8}; keyword =
		// key (type)*, key = alphanum alpha, type alphanum{3,8}.
		for _, s := range body {
			// a key, or (length 3 to 8) an attribute before any key or a type after one
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
			if j < len(body) && ((len(body[j]) == 2 && isAlpha(body[j])) || (len(body[j]) == 3 && isDigit(body[j]))) {
				j++
			}
			for j < len(body) && isVariant(body[j]) {
				j++
			}
		}
		for j < len(body) {
			if !isTKey(body[j]) {
				return false
			}
			j++
			n := 0
			for j < len(body) && len(body[j]) >= 3 {
				j++
				n++
			}
			if n == 0 {
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

func isTKey(s string) bool {
	return len(s) == 2 && isAlpha(s[:1]) && isDigit(s[1:])
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

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
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
// are not served. See RATIONALE.md "Which languages does each backend serve?".
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
