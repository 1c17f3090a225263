package fetchport

import "strings"

// Where is url as an error names it: its origin and path, without the user-info, the
// query or the fragment, any of which may hold a credential (user:password@, ?api_key=).
// It cuts the text as the URL standard splits an http(s) URL, without a URL parser (no
// net/url in the module for this).
func Where(url string) string {
	scheme, rest := "", url
	if i := strings.Index(url, "://"); i >= 0 {
		scheme, rest = url[:i+3], url[i+3:]
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	host, path := rest, ""
	if i := strings.IndexAny(rest, `/\`); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	return scheme + host + path
}
