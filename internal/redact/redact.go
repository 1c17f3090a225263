// Package redact is the one redactor of the secrets a session holds (the openai backend's
// apiKey, the values of credential headers, the user-info and query values of a
// configured URL): it replaces every form of them a server can echo with "[redacted]" in
// the text that leaves the engine (DESIGN.md §3 "Secrets stay at the edge",
// docs/design.md "Secrets").
//
// Decode, then match: the matcher reads what it is given through up to Depth layers of
// escapes, each layer JSON string escapes of every kind (\/, \u0073 for every byte, a
// JSON text in a string in a string) or percent-encoding (upper- or lower-case hex, every
// byte or some; a '+' reads as a space), mixed as they come; a JSON message's own string
// escapes are one layer more. Base64 is a re-encoding, not an escape: its forms (the
// standard and URL alphabets, padded or not, and inside a longer base64 text at each of
// the three alignments) are matched through the same layers, white space and line breaks
// between their characters read past (MIME's CRLF every 76 columns). A header value adds
// its credential after an auth scheme (Bearer, Basic, Token, any, in any case), a Basic
// credential's decoded user:pass and its password, and a Cookie's values, quoted or not.
//
// What it cannot promise: a server that disguises its own credential on purpose
// (encrypted, reversed, split over fields, deeper than Depth) can always carry it out.
//
// Values shorter than MinLen bytes are not matched: replacing every "true" or "en-US" in
// the engine's output would corrupt tool results and say nothing about a secret. The
// methods that add report them, and the binding warns in the console.
//
// A zero Redactor redacts nothing, at the cost of one pointer load per call. It is safe
// for concurrent use: secrets are added copy-on-write.
//
// It imports only strings, sync, unicode/utf8 and unsafe: no fmt, no reflection, no
// encoding/base64 (its own few lines encode the forms).
package redact

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"langmodel/internal/jsonv"
)

// MinLen is the shortest value redacted; a shorter one is reported by the Add methods and
// left alone (package comment).
const MinLen = 8

// Replacement is what a secret becomes.
const Replacement = "[redacted]"

// Redactor holds secrets and replaces them. Its zero value holds none.
type Redactor struct {
	p  atomic.Pointer[set]
	mu sync.Mutex // serialises writers
}

// set is an immutable collection of forms, grouped by their first byte.
type set struct {
	secrets map[string]bool // the values added, to skip repeats
	forms   []form
	first   [256][]int32 // byte → indexes into forms
	hot     [256]bool    // the bytes that begin a form, and '"' and '\\' (JSON's state)
	maxLen  int
}

// form is one string to match; keep bytes of its match are kept before the replacement
// (a masked key's "*").
type form struct {
	s    string
	keep int
	b64  bool // a base64 text's characters: white space between them is read past
}

// Empty reports whether r holds no secret.
func (r *Redactor) Empty() bool { return r == nil || r.p.Load() == nil }

// Add adds a secret and its encoded forms; it reports false (and adds nothing) when the
// value is shorter than MinLen (an empty value is no secret: true).
func (r *Redactor) Add(secret string) bool {
	if len(secret) < MinLen {
		return secret == ""
	}
	r.update(func(s *set) { s.addSecret(secret) })
	return true
}

// AddMasked adds the forms of a key a server echoes masked ("sk-abc1****wxyz"): its first
// eight bytes, and its last four after a "*", for a key of 12 bytes or more. The first
// eight are often a public prefix ("sk-proj-"), so only the backend's own errors use
// them (loop/openai), not the handler's redactor of everything that leaves.
func (r *Redactor) AddMasked(key string) {
	if len(key) < 12 {
		return
	}
	r.update(func(s *set) {
		s.addForm(form{s: key[:8]})
		s.addForm(form{s: "*" + key[len(key)-4:], keep: 1})
	})
}

// AddHeader adds a header value: the whole value, the credential after its auth scheme,
// a Basic credential's user:pass and password, a cookie's values. It returns the parts too
// short to redact (MinLen).
func (r *Redactor) AddHeader(name, value string) (short []string) {
	vals := []string{value}
	if sp := strings.IndexByte(value, ' '); sp > 0 && token(value[:sp]) {
		cred := trim(value[sp+1:])
		vals = append(vals, cred)
		if jsonv.LowerASCIIString(value[:sp]) == "basic" {
			if dec, ok := unbase64(cred); ok {
				up := string(dec)
				vals = append(vals, up)
				if c := strings.IndexByte(up, ':'); c >= 0 {
					vals = append(vals, up[c+1:])
				}
			}
		}
	}
	if jsonv.LowerASCIIString(name) == "cookie" {
		for _, c := range split(value, ";") {
			if eq := strings.IndexByte(c, '='); eq >= 0 {
				v := trim(c[eq+1:])
				vals = append(vals, v)
				if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' { // a quoted value (RFC 6265)
					vals = append(vals, v[1:len(v)-1])
				}
			}
		}
	}
	return r.addAll(vals)
}

// AddURL adds a configured URL's user-info (user:pass and the password) and the values of
// its query parameters that are credentials: by name (SecretParam) or named in names (the
// page's secretParams, in any case). Other values (api-version=2024-10-21, team=…) are
// no secrets and stay in what leaves. It returns the values too short to redact.
func (r *Redactor) AddURL(u string, names ...string) (short []string) {
	var vals []string
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
		host := rest
		if j := strings.IndexAny(host, "/?#"); j >= 0 {
			host = host[:j]
		}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			ui := host[:at]
			vals = append(vals, ui, unescape(ui))
			if c := strings.IndexByte(ui, ':'); c >= 0 {
				vals = append(vals, ui[c+1:], unescape(ui[c+1:]))
			}
		}
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		query := rest[q+1:]
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query = query[:h]
		}
		for _, kv := range split(query, "&;") {
			eq := strings.IndexByte(kv, '=')
			if eq < 0 {
				continue
			}
			name := unescape(kv[:eq])
			named := SecretParam(name)
			for _, n := range names {
				named = named || jsonv.LowerASCIIString(n) == jsonv.LowerASCIIString(name)
			}
			if named {
				vals = append(vals, kv[eq+1:], unescape(kv[eq+1:]))
			}
		}
	}
	return r.addAll(vals)
}

// secretWords are the words of a query parameter's name that make its value a
// credential: key, token, sig, secret, auth, password, code and their kin.
var secretWords = []string{"key", "apikey", "accesskey", "privatekey", "token", "accesstoken", "apitoken",
	"idtoken", "sig", "signature", "secret", "clientsecret", "auth", "authorization", "password", "passwd",
	"pwd", "pass", "passphrase", "code", "credential", "credentials", "session", "sessionid", "sid", "jwt", "bearer"}

// SecretParam reports whether a query parameter named name carries a credential: one of
// the words of its name (split at punctuation and at a lower-to-upper case change:
// api_key, apiKey, X-Amz-Signature) is a credential's word (secretWords).
func SecretParam(name string) bool {
	start := 0
	for i := 0; i <= len(name); i++ {
		end := i == len(name)
		if !end {
			c := name[i]
			alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
			camel := i > start && 'A' <= c && c <= 'Z' && 'a' <= name[i-1] && name[i-1] <= 'z'
			if alnum && !camel {
				continue
			}
			if alnum { // a word ends before an upper-case letter that follows a lower-case one
				if contains(secretWords, jsonv.LowerASCIIString(name[start:i])) {
					return true
				}
				start = i
				continue
			}
		}
		if i > start && contains(secretWords, jsonv.LowerASCIIString(name[start:i])) {
			return true
		}
		start = i + 1
	}
	return false
}

// HasUserInfo reports whether url names a user (and maybe a password) before its host:
// user:pass@host. Such a URL cannot be fetched (fetch refuses it, in browsers and in
// Node); the binding refuses it at create() with an error that shows none of it.
func HasUserInfo(url string) bool {
	i := strings.Index(url, "://")
	if i < 0 {
		return false
	}
	host := url[i+3:]
	if j := strings.IndexAny(host, "/?#\\"); j >= 0 {
		host = host[:j]
	}
	return strings.IndexByte(host, '@') >= 0
}

// addAll adds every value long enough and returns the others (each once).
func (r *Redactor) addAll(vals []string) (short []string) {
	var keep []string
	for _, v := range vals {
		switch {
		case v == "":
		case len(v) < MinLen:
			if !contains(short, v) {
				short = append(short, v)
			}
		default:
			keep = append(keep, v)
		}
	}
	if len(keep) > 0 {
		r.update(func(s *set) {
			for _, v := range keep {
				s.addSecret(v)
			}
		})
	}
	return short
}

func (r *Redactor) update(fn func(*set)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.p.Load()
	s := &set{secrets: map[string]bool{}}
	if old != nil {
		for k := range old.secrets {
			s.secrets[k] = true
		}
		s.forms = append(s.forms, old.forms...)
		s.first, s.hot = old.first, old.hot
		for b := range s.first {
			s.first[b] = append([]int32(nil), old.first[b]...)
		}
		s.maxLen = old.maxLen
	}
	fn(s)
	if len(s.forms) > 0 {
		r.p.Store(s)
	}
}

// IsSecretHeader reports whether a header named name carries a credential:
// Authorization, Proxy-Authorization, Cookie, X-API-Key, api-key, or one of extra (the
// page's secretHeaders), in any case.
func IsSecretHeader(name string, extra []string) bool {
	switch jsonv.LowerASCIIString(name) {
	case "authorization", "proxy-authorization", "cookie", "x-api-key", "api-key":
		return true
	}
	for _, e := range extra {
		if jsonv.LowerASCIIString(e) == jsonv.LowerASCIIString(name) {
			return true
		}
	}
	return false
}

// ShowURL is a URL as errors name it: its origin and path, never its user-info, query or
// fragment.
func ShowURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		host := u[i+3:]
		if j := strings.IndexAny(host, "/\\"); j >= 0 {
			host = host[:j]
		}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			u = u[:i+3] + u[i+3+at+1:]
		}
	}
	return u
}

// addSecret adds v's forms.
func (s *set) addSecret(v string) {
	if s.secrets[v] {
		return
	}
	s.secrets[v] = true
	s.addForm(form{s: v})
	// Its escaped forms (JSON, percent-encoding) are read by the matcher (unit); base64
	// is not an escape but a re-encoding, so its forms are added: of v, and of v as JSON
	// and percent-encoding write it, where those differ.
	b64 := []string{v}
	if e := jsonv.AppendString(nil, v); string(e[1:len(e)-1]) != v {
		b64 = append(b64, string(e[1:len(e)-1]))
	}
	if strings.IndexByte(v, '/') >= 0 { // as PHP's and Java's encoders write it
		b64 = append(b64, strings.ReplaceAll(b64[len(b64)-1], "/", `\/`))
	}
	if p := percent(v, upperHex, false); p != v {
		b64 = append(b64, p)
	}
	for _, w := range b64 {
		for _, alpha := range []string{stdAlphabet, urlAlphabet} {
			s.addForm(form{s: encode64(alpha, []byte(w), true), b64: true}) // the whole value encoded, padded
			s.addForm(form{s: encode64(alpha, []byte(w), false), b64: true})
			// The base64 characters that depend on w's bytes alone, with 0, 1 or 2 bytes
			// before it: what any base64 text holding w at that alignment contains.
			for o := 0; o < 3; o++ {
				full := encode64(alpha, append(make([]byte, o), w...), false)
				from, to := (8*o+5)/6, 8*(o+len(w))/6
				if to-from >= MinLen {
					s.addForm(form{s: full[from:to], b64: true})
				}
			}
		}
	}
}

func (s *set) addForm(f form) {
	for _, g := range s.forms {
		if g == f {
			return
		}
	}
	s.forms = append(s.forms, f)
	s.first[f.s[0]] = append(s.first[f.s[0]], int32(len(s.forms)-1))
	s.hot[f.s[0]], s.hot['"'], s.hot['\\'], s.hot['%'] = true, true, true, true
	s.maxLen = max(s.maxLen, len(f.s))
}

// The base64 alphabets, standard and URL (RFC 4648). The few lines below encode and
// decode them: encoding/base64's four Encodings and decoder cost the module 2.3 KB brotli.
const (
	stdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

// encode64 is src encoded in alpha, padded with = when pad.
func encode64(alpha string, src []byte, pad bool) string {
	var b []byte
	for i := 0; i < len(src); i += 3 {
		var v uint32
		n := min(3, len(src)-i)
		for k := 0; k < 3; k++ {
			v <<= 8
			if k < n {
				v |= uint32(src[i+k])
			}
		}
		for k := 0; k < 4; k++ {
			if k <= n {
				b = append(b, alpha[v>>(18-6*k)&63])
			} else if pad {
				b = append(b, '=')
			}
		}
	}
	return string(b)
}

// unbase64 decodes s in the standard alphabet, padded or not.
func unbase64(s string) ([]byte, bool) {
	for len(s) > 0 && s[len(s)-1] == '=' {
		s = s[:len(s)-1]
	}
	if len(s)%4 == 1 {
		return nil, false
	}
	var b []byte
	var v, bits uint32
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(stdAlphabet, s[i])
		if d < 0 {
			return nil, false
		}
		v, bits = v<<6|uint32(d), bits+6
		if bits >= 8 {
			bits -= 8
			b = append(b, byte(v>>bits))
		}
	}
	return b, true
}

const (
	upperHex = "0123456789ABCDEF"
	lowerHex = "0123456789abcdef"
)

// percent is v percent-encoded as a URL query value is: unreserved bytes as they are,
// the rest as %XX in hex's case, a space as + when plus.
func percent(v, hex string, plus bool) string {
	var b []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b = append(b, c)
		case c == ' ' && plus:
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// unescape undoes percent-encoding (and + for space); text that is not valid stays.
func unescape(s string) string {
	if strings.IndexAny(s, "%+") < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0:
			b = append(b, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// token reports whether s is an auth scheme's name (RFC 9110 token characters).
func token(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// split cuts s at every byte of seps (ASCII): strings.FieldsFunc's and Split's code is
// more than this needs.
func split(s, seps string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i]), s[i+1:]
	}
}

// trim removes ASCII spaces and tabs around s.
func trim(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	st := r.p.Load()
	if st == nil {
		return s
	}
	out, _ := st.replace(s, false)
	return out
}

// JSON returns the JSON text b with every secret inside its strings replaced, reading
// their escapes; a match never crosses a string's end, so the text stays valid JSON. b
// itself is returned when nothing matched.
func (r *Redactor) JSON(b []byte) []byte {
	if r == nil {
		return b
	}
	st := r.p.Load()
	if st == nil || len(b) == 0 {
		return b
	}
	out, changed := st.replace(unsafe.String(unsafe.SliceData(b), len(b)), true)
	if !changed {
		return b
	}
	return []byte(out)
}

// Parts redacts texts that follow each other (the text parts of one message) as one
// text, so that a secret split across two of them is caught: each keeps its own bytes
// outside the matches, and a match is replaced in the part where it starts. parts itself
// is returned when nothing matched.
func (r *Redactor) Parts(parts []string) []string {
	if r.Empty() || len(parts) == 0 {
		return parts
	}
	st := r.p.Load()
	if len(parts) == 1 {
		if out, changed := st.replace(parts[0], false); changed {
			return []string{out}
		}
		return parts
	}
	whole := strings.Join(parts, "")
	var spans [][2]int
	for i := 0; i < len(whole); {
		start, end, keep := st.next(whole, i, false)
		if start < 0 {
			break
		}
		spans = append(spans, [2]int{start + keep, end})
		i = end
	}
	if spans == nil {
		return parts
	}
	out := make([]string, len(parts))
	off := 0
	for k, p := range parts {
		lo, hi := off, off+len(p)
		var b strings.Builder
		pos := lo
		for _, sp := range spans {
			if sp[1] <= lo || sp[0] >= hi {
				continue
			}
			if sp[0] >= lo {
				b.WriteString(whole[pos:sp[0]])
				b.WriteString(Replacement)
			}
			pos = min(sp[1], hi)
		}
		b.WriteString(whole[pos:hi])
		out[k] = b.String()
		off = hi
	}
	return out
}

// replace returns s with every match replaced, and whether there was one.
func (st *set) replace(s string, json bool) (string, bool) {
	start, end, keep := st.next(s, 0, json)
	if start < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for start >= 0 {
		b.WriteString(s[pos : start+keep])
		b.WriteString(Replacement)
		pos = end
		start, end, keep = st.next(s, end, json)
	}
	b.WriteString(s[pos:])
	return b.String(), true
}

// Depth is how many layers of escapes the matcher reads beneath a text: JSON string
// escapes of every kind (\/, \u0073, a JSON text inside a string inside a string) and
// percent-encoding, each layer either or both. A JSON message's own string escapes
// (Redactor.JSON) are read besides, as the layer above these.
const Depth = 3

// The outcomes of reading a unit.
const (
	unitOK   = iota
	unitEnd  // the text ended, or ended inside an escape: more text may complete it
	unitStop // a JSON string's closing quote: nothing is matched across it
)

// unit reads the unit at s[i] at depth d: the bytes it stands for, where the next
// begins, and an outcome. At depth 0 a unit is a byte (stop: a '"' ends the string, in a
// JSON message); at depth d it is a unit of depth d-1, or a JSON escape or a %XX made of
// such units, decoded. A malformed escape stands for its first byte.
func unit(s string, i, d int, stop bool, buf *[4]byte) ([]byte, int, int) {
	if i < len(s) { // the usual byte stands for itself at every depth
		if c := s[i]; c != '\\' && c != '%' && (c != '"' || !stop) {
			buf[0] = c
			return buf[:1], i + 1, unitOK
		}
	}
	if d == 0 {
		switch {
		case i >= len(s):
			return nil, i, unitEnd
		case stop && s[i] == '"':
			return nil, i, unitStop
		}
		buf[0] = s[i]
		return buf[:1], i + 1, unitOK
	}
	u, j, out := unit(s, i, d-1, stop, buf)
	if out != unitOK || len(u) != 1 || (u[0] != '\\' && u[0] != '%') {
		return u, j, out
	}
	c := u[0]
	tail := stop && d > 1 // an escape's own bytes may be a quote at depth 0 (\")
	if c == '%' {
		hi, k, out := hexUnits(s, j, d-1, tail, 2, buf)
		if out == unitEnd {
			return nil, k, unitEnd
		}
		if out != unitOK {
			buf[0] = '%'
			return buf[:1], j, unitOK
		}
		buf[0] = byte(hi)
		return buf[:1], k, unitOK
	}
	e, k, out := unit(s, j, d-1, tail, buf)
	if out == unitEnd {
		return nil, k, unitEnd
	}
	if out != unitOK || len(e) != 1 {
		buf[0] = '\\'
		return buf[:1], j, unitOK
	}
	switch e[0] {
	case '"', '\\', '/':
	case 'b':
		buf[0] = '\b'
	case 'f':
		buf[0] = '\f'
	case 'n':
		buf[0] = '\n'
	case 'r':
		buf[0] = '\r'
	case 't':
		buf[0] = '\t'
	case 'u':
		r, m, out := hexUnits(s, k, d-1, tail, 4, buf)
		if out == unitEnd {
			return nil, m, unitEnd
		}
		if out != unitOK {
			buf[0] = '\\'
			return buf[:1], j, unitOK
		}
		if 0xD800 <= r && r < 0xDC00 { // a surrogate pair's second half, if it follows
			if b, n, out := unit(s, m, d-1, tail, buf); out == unitOK && len(b) == 1 && b[0] == '\\' {
				if b, n, out = unit(s, n, d-1, tail, buf); out == unitOK && len(b) == 1 && b[0] == 'u' {
					if lo, n, out := hexUnits(s, n, d-1, tail, 4, buf); out == unitOK && 0xDC00 <= lo && lo < 0xE000 {
						r, m = 0x10000+(r-0xD800)<<10+(lo-0xDC00), n
					}
				}
			}
		}
		return buf[:utf8.EncodeRune(buf[:], rune(r))], m, unitOK
	default:
		buf[0] = '\\'
		return buf[:1], j, unitOK
	}
	return buf[:1], k, unitOK
}

// hexUnits reads n hex digits as units of depth d from s[i]: their value and the end;
// unitStop when one is not a hex digit.
func hexUnits(s string, i, d int, stop bool, n int, buf *[4]byte) (int, int, int) {
	v := 0
	for ; n > 0; n-- {
		u, j, out := unit(s, i, d, stop, buf)
		if out == unitEnd {
			return 0, j, unitEnd
		}
		if out != unitOK || len(u) != 1 || unhex(u[0]) < 0 {
			return 0, i, unitStop
		}
		v, i = v<<4|unhex(u[0]), j
	}
	return v, i, unitOK
}

// next finds the leftmost (then longest) match in s at or after from: its start, end and
// how many of its bytes are kept; start -1 when there is none. In JSON mode, from must be
// at a token's start (not inside an escape), matches start only inside strings, and the
// text is read from depth 1 (the string's escapes) to Depth+1; otherwise from 0 to Depth.
func (st *set) next(s string, from int, json bool) (start, end, keep int) {
	inString := false
	if json {
		// Whether from is inside a string: the caller resumes after a match, which ends
		// inside one; a scan from 0 starts outside.
		inString = from > 0
	}
	var buf [4]byte
	for i := from; i < len(s); {
		c, n := s[i], 1
		if !st.hot[c] { // the usual byte: begins no form, changes no state
			i++
			continue
		}
		if json {
			switch {
			case c == '"':
				inString = !inString
				i++
				continue
			case !inString:
				i++
				continue
			case c == '\\':
				u, j, out := unit(s, i, 1, true, &buf)
				if out == unitOK {
					n = j - i
					// The usual escape (\", \n, \/) stands for a byte that begins no
					// form and no deeper escape: nothing can start here.
					if len(u) == 1 && u[0] != '\\' && u[0] != '%' && len(st.first[u[0]]) == 0 {
						i += n
						continue
					}
				}
			}
		}
		if e, k, _ := st.at(s, i, json, false); e >= 0 {
			return i, e, k
		}
		i += n
	}
	return -1, -1, 0
}

// at returns where the longest match at s[i] ends and how many of its bytes are kept
// (-1: none). With partial, it reports instead (end len(s)) a match the text's end cuts
// short.
func (st *set) at(s string, i int, json, partial bool) (end, keep int, cut bool) {
	lo, hi := 0, Depth
	if json {
		lo, hi = 1, Depth+1
	}
	best := -1
	var buf [4]byte
	for d := lo; d <= hi; d++ {
		u, j, out := unit(s, i, d, json, &buf)
		if out == unitEnd && partial {
			return len(s), 0, true
		}
		if out != unitOK {
			break
		}
		deeper := u[0] == '\\' || u[0] == '%'
		for _, f := range st.first[u[0]] {
			fm := &st.forms[f]
			// Most candidates fail at their second byte: when the first is a plain byte,
			// checked here, without decoding.
			if j == i+1 && j < len(s) {
				if c := s[i+1]; c != fm.s[1] && c != '\\' && c != '%' && !(c == '+' && fm.s[1] == ' ') && !(fm.b64 && space(c)) {
					continue
				}
			}
			e, esc, short := matchAt(s, i, fm, d, json)
			if short && partial {
				return len(s), 0, true
			}
			if e > best {
				best, keep = e, fm.keep
			}
			deeper = deeper || esc
		}
		if !deeper { // no escape read at this depth: the next reads the same
			break
		}
	}
	return best, keep, false
}

// matchAt returns where f's match at s[i], read at depth d, ends (-1: none), whether an
// escape's first byte was among the units it read (a deeper read may differ), and
// whether the text ended before the match did. A base64 form's characters may be apart
// by white space (a MIME line break); a space in the secret matches a '+'.
func matchAt(s string, i int, f *form, d int, stop bool) (end int, esc, short bool) {
	var buf [4]byte
	j, spaces := i, 0
	for k := 0; k < len(f.s); {
		u, n, out := unit(s, j, d, stop, &buf)
		if out != unitOK {
			return -1, esc, out == unitEnd
		}
		if len(u) == 1 {
			c := u[0]
			esc = esc || c == '\\' || c == '%'
			if c == f.s[k] || c == '+' && f.s[k] == ' ' {
				k, j, spaces = k+1, n, 0
				continue
			}
			if f.b64 && k > 0 && space(c) && spaces < maxSpaces {
				j, spaces = n, spaces+1
				continue
			}
			return -1, esc, false
		}
		if !strings.HasPrefix(f.s[k:], unsafe.String(&u[0], len(u))) {
			return -1, esc, false
		}
		k, j = k+len(u), n
	}
	return j, esc, false
}

func space(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// maxSpaces is how much white space a base64 form's match reads past between two of its
// characters (MIME's CRLF is two).
const maxSpaces = 4

// Stream redacts a text that arrives in pieces (a prompt's streamed chunks): a secret
// split across pieces is caught. It holds back only a tail that could begin a secret's
// form; Flush returns it at the end.
type Stream struct {
	r    *Redactor
	held string
}

// Stream returns a Stream over r's secrets.
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Push takes the next piece and returns what may go out now.
func (s *Stream) Push(piece string) string {
	if s.r.Empty() {
		return piece
	}
	text := s.held + piece
	cut := s.r.Release(text)
	s.held = text[cut:]
	return s.r.String(text[:cut])
}

// Release is how many of the leading bytes of text, a text still being written (a
// stream's, or the reasoning and forming calls the events show), may go out now: all
// but a tail that could begin a form not complete yet (a shorter form complete there may
// be the start of a longer one), and the start of a match that crosses it. What goes out
// is still to be redacted; the rest waits for more text or for the text's end.
func (r *Redactor) Release(text string) int {
	if r.Empty() {
		return len(text)
	}
	st := r.p.Load()
	cut := len(text) - st.hold(text)
	for pos := 0; pos < cut; {
		start, end, _ := st.next(text, pos, false)
		if start < 0 || start >= cut {
			break
		}
		if end > cut {
			return start
		}
		pos = end
	}
	return cut
}

// Flush returns what is held back, redacted.
func (s *Stream) Flush() string {
	h := s.held
	s.held = ""
	if h == "" {
		return ""
	}
	return s.r.String(h)
}

// hold is the length of the longest suffix of s that a match could begin but the text's
// end cuts short: a form's proper prefix, read through escapes, or an escape cut short.
func (st *set) hold(s string) int {
	// A match cut short reads every byte from its start to the text's end: a form's
	// bytes, and between a base64 form's characters at most maxSpaces of white space. A
	// tail with no escape in it is read byte by byte; an escape makes a byte of a form as
	// much as six units of the depth above (\u0041), at each depth.
	window := st.maxLen*(1+maxSpaces) + 16
	if strings.ContainsAny(s[max(0, len(s)-window):], `\%`) {
		for d := 0; d < Depth; d++ {
			window *= 6
		}
	}
	for i := max(0, len(s)-window); i < len(s); i++ {
		if !st.hot[s[i]] {
			continue
		}
		if _, _, cut := st.at(s, i, false, true); cut {
			return len(s) - i
		}
	}
	return 0
}

// AddCredentials adds what a backend's or a server's configuration holds: key (an API
// key, and the Authorization value it travels in), the values of header's credential headers (IsSecretHeader
// with secretHeaders) and url's user-info and credential query values (AddURL, with
// secretParams). It returns how many values were too short to redact (MinLen).
func (r *Redactor) AddCredentials(key string, header map[string]string, secretHeaders []string, url string, secretParams ...string) (short int) {
	if key != "" {
		if !r.Add(key) {
			short++
		}
		r.Add("Bearer " + key) // the Authorization header the key travels in, whole
	}
	for k, v := range header {
		if IsSecretHeader(k, secretHeaders) {
			short += len(r.AddHeader(k, v))
		}
	}
	return short + len(r.AddURL(url, secretParams...))
}
