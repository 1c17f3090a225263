package openai

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// An ArrayBuffer or typed array crosses from the face as {type: "bytes", base64}: the
// backend names its format from its signature and sends it as a data: URL.
func TestMediaURL_Bytes(t *testing.T) {
	b64 := func(b string) string { return base64.StdEncoding.EncodeToString([]byte(b)) }
	for _, tc := range []struct{ name, media, want, err string }{
		{"PNG", `{"type":"bytes","base64":"` + b64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") + `"}`, "data:image/png;base64," + b64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ""},
		{"JPEG", `{"type":"bytes","base64":"` + b64("\xff\xd8\xff\xe0") + `"}`, "data:image/jpeg;base64," + b64("\xff\xd8\xff\xe0"), ""},
		{"GIF", `{"type":"bytes","base64":"` + b64("GIF89a\x01\x00") + `"}`, "data:image/gif;base64," + b64("GIF89a\x01\x00"), ""},
		{"WebP", `{"type":"bytes","base64":"` + b64("RIFF\x24\x00\x00\x00WEBPVP8 ") + `"}`, "data:image/webp;base64," + b64("RIFF\x24\x00\x00\x00WEBPVP8 "), ""},
		{"a mimeType given wins", `{"type":"bytes","mimeType":"image/avif","base64":"AQID"}`, "data:image/avif;base64,AQID", ""},
		{"unknown bytes", `{"type":"bytes","base64":"AQID"}`, "", "NotSupportedError"},
		{"too short to tell", `{"type":"bytes","base64":"/w=="}`, "", "NotSupportedError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mediaURL(json.RawMessage(tc.media))
			if tc.err != "" {
				require.Equal(t, session.Kind(tc.err), session.KindOf(err), "%v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
