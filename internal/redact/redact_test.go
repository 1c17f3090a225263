package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const key = "sk-live-A1b2C3d4E5f6"

func keyed() *Redactor {
	var r Redactor
	r.Add(key)
	return &r
}

func TestRedactor_String(t *testing.T) {
	b64 := func(e *base64.Encoding, prefix, s string) string {
		return e.EncodeToString([]byte(prefix + s + "!tail"))
	}
	tests := []struct {
		name, in, want string
	}{
		{"raw", "bad key " + key + ".", "bad key [redacted]."},
		{"twice", key + key, "[redacted][redacted]"},
		{"percent upper", "k=sk-live-A1b2C3d4E5f6&x=1", "k=[redacted]&x=1"},
		{"base64 std padded", base64.StdEncoding.EncodeToString([]byte(key)), "[redacted]"},
		{"base64 url unpadded", base64.RawURLEncoding.EncodeToString([]byte(key)), "[redacted]"},
		{"base64 inside at alignment 0", b64(base64.StdEncoding, "", key), "[redacted]"},
		{"base64 inside at alignment 1", b64(base64.StdEncoding, "x", key), "[redacted]"},
		{"base64 inside at alignment 2", b64(base64.URLEncoding, "xy", key), "[redacted]"},
		{"no over-match of ordinary values", "en-US true sk-live", "en-US true sk-live"},
	}
	r := keyed()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := r.String(tc.in)
			if strings.Contains(tc.name, "inside") {
				require.Contains(t, got, Replacement)
				require.NotContains(t, got, tc.in)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestRedactor_Encodings(t *testing.T) {
	secret := "tok&<>en 1/2+3"
	var r Redactor
	require.True(t, r.Add(secret))
	tests := []struct{ name, in string }{
		{"percent lower with plus", "q=tok%26%3c%3een+1%2f2%2b3"},
		{"percent upper with %20", "q=tok%26%3C%3Een%201%2F2%2B3"},
		{"base64 std", base64.StdEncoding.EncodeToString([]byte(secret))},
		{"base64 url", base64.URLEncoding.EncodeToString([]byte(secret))},
		{"JSON-escaped inside a text (a framed untrusted output)", `said "tok\u0026\u003c\u003een 1/2+3"`},
		{"JSON-escaped inside a text, on the wire", `{"t":"said \"tok\\u0026\\u003c\\u003een 1/2+3\""}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := r.String(tc.in)
			if strings.HasSuffix(tc.name, "on the wire") {
				got = string(r.JSON([]byte(tc.in)))
			}
			require.Contains(t, got, Replacement)
		})
	}
}

func TestRedactor_JSON(t *testing.T) {
	secret := `tok&<>"en\1`
	var r Redactor
	require.True(t, r.Add(secret))
	html, _ := json.Marshal(map[string]string{"a": "x " + secret + " y"})
	tests := []struct{ name, in, want string }{
		{"escaped for HTML", string(html), `{"a":"x [redacted] y"}`},
		{"escaped without HTML", `{"a":"tok&<>\"en\\1"}`, `{"a":"[redacted]"}`},
		{"escaped letters", `["\u0074ok\u0026\u003c\u003E\"en\\1"]`, `["[redacted]"]`},
		{"not after a backslash's escape", `["\\ntok&<>\"en\\1"]`, `["\\n[redacted]"]`},
		{"outside strings untouched", `{"n":12345678}`, `{"n":12345678}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(r.JSON([]byte(tc.in)))
			require.Equal(t, tc.want, got)
			require.True(t, json.Valid([]byte(got)))
		})
	}
	var n Redactor
	require.True(t, n.Add("12345678"))
	require.Equal(t, `{"n":12345678,"s":"[redacted]"}`, string(n.JSON([]byte(`{"n":12345678,"s":"12345678"}`))))
	// A secret whose first byte follows a backslash in the text is not matched there.
	var nl Redactor
	require.True(t, nl.Add("nsecret12"))
	require.Equal(t, `["\nsecret12"]`, string(nl.JSON([]byte(`["\nsecret12"]`))))
}

func TestRedactor_Header(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:hunter2-pass"))
	tests := []struct {
		name, header, value string
		echoes              []string
	}{
		{"bearer in any case", "Authorization", "Bearer " + key, []string{"auth bearer " + key, "BEARER " + key, key}},
		{"token scheme", "Authorization", "Token abcdefgh123", []string{"abcdefgh123"}},
		{"basic decoded", "Authorization", "Basic " + basic, []string{basic, "alice:hunter2-pass", "pw hunter2-pass"}},
		{"cookie values", "Cookie", "sid=s3ss10n-value; lang=en", []string{"s3ss10n-value"}},
		{"quoted cookie value echoed unquoted", "Cookie", `sid="s3ss10n-quoted"; lang=en`, []string{"s3ss10n-quoted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Redactor
			r.AddHeader(tc.header, tc.value)
			for _, e := range tc.echoes {
				require.NotContains(t, r.String("x "+e+" y"), strings.TrimPrefix(strings.TrimPrefix(e, "pw "), "auth bearer "), e)
			}
		})
	}
}

func TestRedactor_Short(t *testing.T) {
	var r Redactor
	require.False(t, r.Add("short"))
	require.True(t, r.Empty())
	require.Equal(t, []string{"lang=en", "en"}, r.AddHeader("cookie", "lang=en"))
	require.Equal(t, []string{"abc"}, r.AddURL("https://h.example/mcp?key=abc&api_key=0123456789ab"))
	require.Equal(t, "en true abc [redacted]", r.String("en true abc 0123456789ab"))
}

func TestRedactor_URL(t *testing.T) {
	var r Redactor
	r.AddURL("https://user:pa%24sword-9@h.example/mcp?api_key=k3y%2Bvalue&x=1")
	require.Equal(t, "[redacted] [redacted] [redacted]", r.String("pa$sword-9 k3y+value k3y%2Bvalue"))
	require.Equal(t, "https://h.example/mcp", ShowURL("https://user:pw@h.example/mcp?api_key=secret#f"))
	require.Equal(t, "/mcp", ShowURL("/mcp?x=1"))
}

func TestRedactor_Parts(t *testing.T) {
	r := keyed()
	tests := []struct {
		name     string
		in, want []string
	}{
		{"split across two parts", []string{"one sk-live-A1b2", "C3d4E5f6 two"}, []string{"one [redacted]", " two"}},
		{"split across three parts", []string{"a sk-live", "-A1b2C3", "d4E5f6"}, []string{"a [redacted]", "", ""}},
		{"whole in one", []string{"a", key, "b"}, []string{"a", "[redacted]", "b"}},
		{"none", []string{"sk-live-", "x"}, []string{"sk-live-", "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, r.Parts(tc.in))
		})
	}
}

func TestRedactor_Stream(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
	}{
		{"split in two", []string{"the key is sk-live-A1", "b2C3d4E5f6, ok"}},
		{"a byte at a time", strings.Split("key "+key+" end", "")},
		{"held tail that is no secret", []string{"sk-live-", "nope"}},
	}
	r := keyed()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := r.Stream()
			var out strings.Builder
			for _, p := range tc.pieces {
				got := s.Push(p)
				require.NotContains(t, got, key)
				out.WriteString(got)
			}
			out.WriteString(s.Flush())
			require.Equal(t, r.String(strings.Join(tc.pieces, "")), out.String())
		})
	}
}

func TestRedactor_Zero(t *testing.T) {
	var r Redactor
	b := []byte(`{"a":"sk-live-A1b2C3d4E5f6"}`)
	require.Equal(t, &b[0], &r.JSON(b)[0])
	require.Equal(t, "x", r.String("x"))
	require.Equal(t, "x", r.Stream().Push("x"))
	var nilR *Redactor
	require.True(t, nilR.Empty())
	require.Equal(t, "x", nilR.String("x"))
}

func BenchmarkRedactor_JSON(b *testing.B) {
	msg := []byte(`{"type":"event","session":1,"detail":{"type":"toolresult","value":"` + strings.Repeat("lorem ipsum dolor sit amet ", 40) + `"}}`)
	for _, bc := range []struct {
		name string
		r    *Redactor
	}{{"none", &Redactor{}}, {"one key", keyed()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				bc.r.JSON(msg)
			}
		})
	}
}

func TestBase64(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "abcd", "\xff\xfe\xfd\x00?>", "alice:hunter2"} {
		require.Equal(t, base64.StdEncoding.EncodeToString([]byte(s)), encode64(stdAlphabet, []byte(s), true))
		require.Equal(t, base64.RawURLEncoding.EncodeToString([]byte(s)), encode64(urlAlphabet, []byte(s), false))
		dec, ok := unbase64(base64.StdEncoding.EncodeToString([]byte(s)))
		require.True(t, ok)
		require.Equal(t, s, string(dec))
	}
	_, ok := unbase64("a!b=")
	require.False(t, ok)
}

// The encodings a server can wrap an echo of a secret in, one inside another, each
// decoded before matching (Depth layers beneath a text, one more in a JSON message).
func TestRedactor_DecodeThenMatch(t *testing.T) {
	const tok = "tok/en+A1b2C3d4E5f6/x" // a '/' and a '+', as base64 keys hold them
	uAll := func(s string) string {     // every byte as \u00XX, as some encoders write
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteString(`\u00` + strings.ToLower(hex2(s[i])))
		}
		return b.String()
	}
	pctAll := func(s string) string { // every byte as %XX
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteString("%" + hex2(s[i]))
		}
		return b.String()
	}
	mime := func(s string) string { // MIME base64: a CRLF every 76 columns
		e := base64.StdEncoding.EncodeToString([]byte(s))
		var b strings.Builder
		for len(e) > 76 {
			b.WriteString(e[:76] + "\r\n")
			e = e[76:]
		}
		b.WriteString(e)
		return b.String()
	}
	jsonStr := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	slashes := strings.ReplaceAll(tok, "/", `\/`) // PHP's and Java's JSON encoders
	long := strings.Repeat("a", 70) + tok         // the token across a MIME line break
	require.Contains(t, mime(long), "\r\n")
	require.NotContains(t, strings.ReplaceAll(mime(long), "\r\n", ""), "\r\n")

	tests := []struct {
		name string
		in   string
		wire bool // in a JSON message (Redactor.JSON), else a text (Redactor.String)
	}{
		{"slash-escaped in a text", `{"t":"` + slashes + `"}`, false},
		{"slash-escaped on the wire", `{"t":"` + slashes + `"}`, true},
		{"every byte \\u-escaped in a text", `{"t":"` + uAll(tok) + `"}`, false},
		{"every byte \\u-escaped on the wire", `{"t":` + jsonStr(`{"t":"`+uAll(tok)+`"}`) + `}`, true},
		{"JSON in a string in a string, on the wire", `{"r":` + jsonStr(`{"a":`+jsonStr(`{"b":`+jsonStr(tok)+`}`)+`}`) + `}`, true},
		{"JSON in a string in a string, escaped, on the wire", `{"r":` + jsonStr(`{"a":`+jsonStr(`{"b":"`+uAll(tok)+`"}`)+`}`) + `}`, true},
		{"percent byte by byte, upper case", "q=" + pctAll(tok), false},
		{"percent byte by byte, lower case", "q=" + strings.ToLower(pctAll(tok)), false},
		{"percent-encoded JSON escapes", "q=" + pctAll(uAll(tok)), false},
		{"JSON-escaped percent-encoding on the wire", `{"t":"` + strings.ReplaceAll(uAll(pctAll(tok)), `\`, `\\`) + `"}`, true},
		{"MIME base64, a line break inside the token", mime(long), false},
		{"MIME base64 on the wire", `{"t":` + jsonStr(mime(long)) + `}`, true},
		{"MIME base64 slash-escaped on the wire", `{"t":"` + strings.ReplaceAll(strings.ReplaceAll(mime(long), "/", `\/`), "\r\n", `\r\n`) + `"}`, true},
		{"base64url", base64.RawURLEncoding.EncodeToString([]byte("x" + tok)), false},
		{"base64 percent-encoded", url.QueryEscape(base64.StdEncoding.EncodeToString([]byte("xy" + tok))), false},
		{"base64 with spaces every four", strings.Join(chunk(base64.StdEncoding.EncodeToString([]byte(tok)), 4), " "), false},
		{"base64 of the JSON-escaped token", base64.StdEncoding.EncodeToString([]byte(slashes)), false},
	}
	var r Redactor
	require.True(t, r.Add(tok))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if tc.wire {
				require.True(t, json.Valid([]byte(tc.in)), tc.in)
				got = string(r.JSON([]byte(tc.in)))
				require.True(t, json.Valid([]byte(got)), got)
			} else {
				got = r.String(tc.in)
			}
			require.Contains(t, got, Replacement)
			require.NotContains(t, decodeAll(got), tok)
		})
	}
}

// decodeAll undoes every layer a test wraps a secret in, as far as it goes.
func decodeAll(s string) string {
	for range 4 {
		var v string
		if json.Unmarshal([]byte(`"`+s+`"`), &v) == nil {
			s = v
		}
		var a any
		if json.Unmarshal([]byte(s), &a) == nil {
			b, _ := json.Marshal(a)
			s = string(b)
		}
		if u, err := url.QueryUnescape(s); err == nil {
			s = u
		}
		if b, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\r\n", "", " ", "").Replace(s)); err == nil {
			s = string(b)
		}
	}
	return s
}

func hex2(c byte) string {
	return strings.ToUpper(string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15]))
}

func chunk(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

// A streamed text (a call's argumentsText, a reasoning, a prompt's chunks) holds back
// a tail a secret's encoded form may begin, escapes included, so that no event carries
// the secret whole or in part.
func TestRedactor_StreamDecoded(t *testing.T) {
	escaped := `{"q":"` + strings.ReplaceAll(key, "-", `\u002d`) + `"}` // a model's JSON encoder
	tests := []struct {
		name string
		text string
	}{
		{"JSON-escaped arguments", escaped},
		{"every byte \\u-escaped", `{"q":"\u0073\u006b\u002d\u006c\u0069\u0076\u0065\u002d\u0041\u0031\u0062\u0032\u0043\u0033\u0064\u0034\u0045\u0035\u0066\u0036"}`},
		{"percent byte by byte", "q=%73%6B%2D%6C%69%76%65%2D%41%31%62%32%43%33%64%34%45%35%66%36&x=1"},
	}
	r := keyed()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Release, as the toolcalldelta and reasoning events use it: each event shows
			// the text's first Release(text) bytes, redacted.
			for n := 1; n <= len(tc.text); n++ {
				text := tc.text[:n]
				shown := r.String(text[:r.Release(text)])
				require.NotContains(t, decodeAll(shown), "A1b2C3d4", "after %d bytes: %s", n, shown)
			}
			require.Equal(t, 0, strings.Count(decodeAll(r.String(tc.text)), key))
			// Stream, as a prompt's chunks: a byte at a time.
			s := r.Stream()
			var out strings.Builder
			for i := 0; i < len(tc.text); i++ {
				out.WriteString(s.Push(tc.text[i : i+1]))
			}
			out.WriteString(s.Flush())
			require.Equal(t, r.String(tc.text), out.String())
			require.Contains(t, out.String(), Replacement)
		})
	}
}

// A query value is a secret when its parameter's name says it is a credential, or the
// page names it; other values are words and dates an answer may need, never scrubbed.
func TestRedactor_QueryByName(t *testing.T) {
	tests := []struct {
		name, url string
		names     []string
		in, want  string
	}{
		{"Azure's api-version and an api-key", "https://x.openai.azure.com/openai?api-version=2024-10-21&api-key=az0123456789abcdef", nil,
			"version 2024-10-21, key az0123456789abcdef", "version 2024-10-21, key [redacted]"},
		{"an ordinary word stays", "https://h.example/mcp?team=engineering&access_token=tok-0123456789", nil,
			"the engineering team; tok-0123456789", "the engineering team; [redacted]"},
		{"camelCase and a signature", "https://h.example/mcp?apiKey=K3y-0123456789&X-Amz-Signature=abcdef0123456789&region=us-east-1x", nil,
			"K3y-0123456789 abcdef0123456789 us-east-1x", "[redacted] [redacted] us-east-1x"},
		{"sig, code, password", "https://h.example/cb?sig=s1gnature-v4lue&code=0auth-c0de-xyz&password=hunter2-hunter2", nil,
			"s1gnature-v4lue 0auth-c0de-xyz hunter2-hunter2", "[redacted] [redacted] [redacted]"},
		{"keyword is no key", "https://h.example/search?keyword=mountains&monkey=bananas123", nil,
			"mountains bananas123", "mountains bananas123"},
		{"a parameter the page names", "https://h.example/mcp?tenant=acme-tenant-0042&team=engineering", []string{"Tenant"},
			"acme-tenant-0042 engineering", "[redacted] engineering"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Redactor
			r.AddURL(tc.url, tc.names...)
			require.Equal(t, tc.want, r.String(tc.in))
		})
	}
}

func TestHasUserInfo(t *testing.T) {
	require.True(t, HasUserInfo("http://alice:pw@h.example/mcp"))
	require.True(t, HasUserInfo("https://tok@h.example"))
	require.False(t, HasUserInfo("https://h.example/mcp?next=a@b"))
	require.False(t, HasUserInfo("/mcp"))
	require.Equal(t, "http://h.example/mcp", ShowURL(`http://alice:pw@h.example/mcp?api_key=x`))
}
