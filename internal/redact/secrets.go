package redact

import (
	"strings"

	"langmodel/internal/jsonv"
)

// The secret set: what a secret is (an API key, a credential header's value, a configured
// URL's user-info and credential query values) and the forms of each the matcher looks
// for, added copy-on-write.

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
