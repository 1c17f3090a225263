package session_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// TestCanonicalLanguageTag: § Dependencies (ECMA-402 IsStructurallyValidLanguageTag and
// CanonicalizeUnicodeLocaleId, UTS 35 syntax), one tag per row; want "" means RangeError.
func TestCanonicalLanguageTag(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"en", "en"},
		{"EN", "en"},
		{"en-us", "en-US"},
		{"zh-hant", "zh-Hant"},
		{"ZH-HANT-tw", "zh-Hant-TW"},
		{"es-419", "es-419"},
		{"sr-cyrl", "sr-Cyrl"},
		{"de-CH-1901", "de-CH-1901"},
		{"sl-rozaj-biske-1994", "sl-1994-biske-rozaj"},
		{"de-CH-1901-x-phonebk-extended", "de-CH-1901-x-phonebk-extended"},
		{"ja-JP-u-ca-japanese", "ja-JP-u-ca-japanese"},
		{"en-u-attr-co-phonebk", "en-u-attr-co-phonebk"},
		{"en-t-ja-m0-ungegn", "en-t-ja-m0-ungegn"},
		{"en-x-a-u-ca", "en-x-a-u-ca"},
		{"en-z-abc-a-xyz", "en-a-xyz-z-abc"},
		{"en-p-ab-0-cd", "en-0-cd-p-ab"}, // digit and letter singletons are distinct
		{"en-0-ab-0-cd", ""},
		{"haw", "haw"},
		{"unk", "unk"}, // structurally valid; whether a backend serves it is availability's business
		{"abcdefgh", "abcdefgh"},
		{"en-abc-invalid", ""},
		{"", ""},
		{"e", ""},
		{"abcd", ""},
		{"abcdefghi", ""},
		{"root", ""},
		{"en_US", ""},
		{"en--US", ""},
		{"en-", ""},
		{"x-private", ""},
		{"i-klingon", ""},
		{"en-US-US", ""},
		{"de-1901-1901", ""},
		{"en-a-x", ""},
		{"en-u-ca-a-x-y", ""},
		{"en-u-a-ca", ""},
		{"en-a-bc-a-de", ""},
		{"en-x", ""},
		{"en-t-m0", ""},
		{"\u212Aa", ""}, // a Kelvin sign is not a "k"
		{"en-US-u-a1", ""},
		{"en-US-u-1a", "en-US-u-1a"},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			got, err := session.CanonicalLanguageTag(tc.tag)
			if tc.want == "" {
				require.Equal(t, session.KindRange, session.KindOf(err))
				require.EqualError(t, err, `invalid language tag: "`+tc.tag+`"`)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
