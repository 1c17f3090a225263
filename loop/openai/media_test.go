package openai

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/session"
)

// An image is a URL string, {url}, or {mimeType, data}, keys in any case, read as
// encoding/json read them; anything else is a TypeError.
func TestMediaURL_Forms(t *testing.T) {
	const notAnImage = "malformed message: an image must be a URL or {mimeType, data}"
	for _, tc := range []struct{ name, media, want, err string }{
		{"a data: URL", `"data:image/png;base64,AA"`, "data:image/png;base64,AA", ""},
		{"a URL", `"https://example.com/a.png"`, "https://example.com/a.png", ""},
		{"a URL with escapes", `"a\u0026b"`, "a&b", ""},
		{"an empty string", `""`, "", notAnImage},
		{"null", `null`, "", notAnImage},
		{"a number", `5`, "", notAnImage},
		{"an array", `[]`, "", notAnImage},
		{"nothing", ``, "", notAnImage},
		{"broken JSON", `{`, "", notAnImage},
		{"{url}", `{"url":"https://x/y.png"}`, "https://x/y.png", ""},
		{"{URL}: keys in any case", `{"URL":"https://x/y.png"}`, "https://x/y.png", ""},
		{"{url} with escapes", `{"url":"a\u003cb"}`, "a<b", ""},
		{"{url} and members unknown", `{"url":"u","extra":{"deep":[1,2]}}`, "u", ""},
		{"{mimeType, data}", `{"mimeType":"image/png","data":"AA"}`, "data:image/png;base64,AA", ""},
		{"{mimetype, DATA}: keys in any case", `{"mimetype":"image/jpeg","DATA":"BB"}`, "data:image/jpeg;base64,BB", ""},
		{"{data} alone: no type", `{"data":"AA"}`, "data:;base64,AA", ""},
		{"{data} with a null mimeType", `{"mimeType":null,"data":"AA"}`, "data:;base64,AA", ""},
		{"an empty url gives way to data", `{"url":"","data":"AA","mimeType":"image/gif"}`, "data:image/gif;base64,AA", ""},
		{"a url that is not a string", `{"url":5}`, "", notAnImage},
		{"an empty object", `{}`, "", notAnImage},
		{"an object and trailing data", `{"url":"u"} x`, "", notAnImage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mediaURL(jsonv.RawMessage(tc.media))
			require.Equal(t, tc.want, got)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
			require.Equal(t, session.KindType, session.KindOf(err))
		})
	}
}
