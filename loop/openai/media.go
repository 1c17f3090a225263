package openai

import (
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/session"
)

// How the page's image and audio parts become Chat Completions content parts.

// media is an image or audio part as the page encoded it: {url}, {mimeType, data} with
// base64 data, or the face's encoding of binary input, {type: "bytes", mimeType?, base64}.
type media struct{ url, mimeType, data, b64 string }

// readMedia reads raw as encoding/json's Unmarshal read it into struct{URL, MimeType,
// Data, Base64 string}: keys in any case, members that are not strings make the object
// unreadable (false).
func readMedia(raw jsonv.RawMessage, what string) (media, bool) {
	var m media
	ok := readObject(raw, func(r *reader, key memberKey, depth int) {
		switch {
		case key.Is("url"):
			r.stringField(&m.url, false, what, "url", depth)
		case key.Is("mimeType"):
			r.stringField(&m.mimeType, false, what, "mimeType", depth)
		case key.Is("data"):
			r.stringField(&m.data, false, what, "data", depth)
		case key.Is("base64"):
			r.stringField(&m.b64, false, what, "base64", depth)
		default:
			r.Skip(depth)
		}
	})
	return m, ok
}

// mediaURL is an image's URL for an image_url part: a URL string (usually a data: URL),
// {url}, {mimeType, data}, or bytes, whose format is read from their first bytes when no
// mimeType names it.
func mediaURL(raw jsonv.RawMessage) (string, error) {
	if s, ok := readString(raw); ok && s != "" {
		return s, nil
	}
	m, ok := readMedia(raw, "image")
	switch {
	case ok && m.url != "":
		return m.url, nil
	case ok && m.data != "":
		return "data:" + m.mimeType + ";base64," + m.data, nil
	case ok && m.b64 != "":
		if m.mimeType == "" {
			m.mimeType = imageType(m.b64)
		}
		if m.mimeType == "" {
			return "", session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "the image's bytes are not PNG, JPEG, GIF or WebP, the formats the OpenAI-compatible backend recognises (give {mimeType, data} for another)")
		}
		return "data:" + m.mimeType + ";base64," + m.b64, nil
	}
	return "", session.Errorf(session.KindType, session.ErrBadMessage, "an image must be a URL or {mimeType, data}")
}

// head decodes the first 12 bytes of base64 data, for the signatures below, as
// base64.StdEncoding.DecodeString decodes its first 16 characters (jsonv.DecodeBase64):
// what decodes before a fault.
func head(b64 string) string {
	h, _ := jsonv.DecodeBase64(nil, b64[:min(len(b64), 16)])
	return string(h)
}

// imageType names the format of base64-encoded image bytes from their signature, or "".
func imageType(b64 string) string {
	switch h := head(b64); {
	case strings.HasPrefix(h, "\x89PNG\r\n\x1a\n"):
		return "image/png"
	case strings.HasPrefix(h, "\xff\xd8\xff"):
		return "image/jpeg"
	case strings.HasPrefix(h, "GIF87a"), strings.HasPrefix(h, "GIF89a"):
		return "image/gif"
	case len(h) >= 12 && h[:4] == "RIFF" && h[8:12] == "WEBP":
		return "image/webp"
	}
	return ""
}

// audioInput is an audio part's base64 data and format for an input_audio part: bytes,
// {mimeType, data} or a base64 data: URL, in the two formats Chat Completions takes, WAV
// and MP3, named by the mimeType or, without one, by the bytes' signature.
func audioInput(raw jsonv.RawMessage) (data, format string, err error) {
	var m media
	ok := true
	if s, isString := readString(raw); isString && s != "" {
		mimeType, b64, isData := strings.Cut(strings.TrimPrefix(s, "data:"), ";base64,")
		if !strings.HasPrefix(s, "data:") || !isData {
			return "", "", session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "the OpenAI-compatible backend sends audio as data, not as a URL")
		}
		m = media{mimeType: mimeType, b64: b64}
	} else {
		m, ok = readMedia(raw, "audio")
	}
	if data = m.b64; data == "" {
		data = m.data
	}
	if !ok || data == "" {
		return "", "", session.Errorf(session.KindType, session.ErrBadMessage, "audio must be bytes (an ArrayBuffer, typed array, Blob or AudioBuffer) or {mimeType, data}")
	}
	if format = audioFormat(m.mimeType, data); format == "" {
		return "", "", session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "the audio is not WAV or MP3, the formats the OpenAI-compatible backend sends")
	}
	return data, format, nil
}

func audioFormat(mimeType, b64 string) string {
	switch jsonv.LowerASCIIString(mimeType) {
	case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave":
		return "wav"
	case "audio/mpeg", "audio/mp3":
		return "mp3"
	case "":
	default:
		return ""
	}
	switch h := head(b64); {
	case len(h) >= 12 && h[:4] == "RIFF" && h[8:12] == "WAVE":
		return "wav"
	case strings.HasPrefix(h, "ID3"), len(h) >= 2 && h[0] == 0xff && h[1]&0xe0 == 0xe0:
		return "mp3"
	}
	return ""
}
