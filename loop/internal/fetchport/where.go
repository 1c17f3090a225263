package fetchport

import "strings"

// Where is url as an error names it: its origin and path, without the user-info, the
// query or the fragment, any of which may hold a credential (user:password@, ?api_key=).
// It cuts the text as the URL standard splits an http(s) URL, without a URL parser (no
// net/url in the module for this), in one loop (strings.IndexAny costs 3 KB of code).
func Where(url string) string {
	scheme, rest := "", url
	if i := strings.Index(url, "://"); i >= 0 {
		scheme, rest = url[:i+3], url[i+3:]
	}
	host := -1 // where the host ends (the path begins)
	at := -1   // the last @ before it
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '?' || c == '#':
			rest = rest[:i]
		case host < 0 && (c == '/' || c == '\\'):
			host = i
		case host < 0 && c == '@':
			at = i
		}
	}
	return scheme + rest[at+1:]
}
