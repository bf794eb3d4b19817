package llm

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// isHTML reports whether a response is a web page: what a base URL that
// points at a website, a login portal or a proxy's error page answers.
func isHTML(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// htmlTitle finds a page's <title>, which says what answered better than
// the markup around it; lazily compiled, as nothing else here needs it.
func htmlTitle(page []byte) string {
	m := regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`).FindSubmatch(page)
	if m == nil {
		return ""
	}
	return truncate(strings.Join(strings.Fields(string(m[1])), " "), 120)
}

// notAnAPI is the error for a successful response that is a web page: the
// base URL is not a model API. Trying again cannot help, so it is not of a
// retryable kind, and the message says what to check.
func notAnAPI(provider string, u *url.URL, h http.Header, status int) *Error {
	where := ""
	if u != nil {
		where = " from " + u.Scheme + "://" + u.Host + u.Path
	}
	return &Error{Kind: ErrNotFound, Provider: provider, Status: status,
		Message: fmt.Sprintf("not a model API (got %s%s); check the provider's base_url: it should end where the API's paths start, such as …/v1", h.Get("Content-Type"), where)}
}

// htmlError rewrites an error response that is a web page (a proxy's or a
// CDN's error page): its kind stays the status's, so a 502 page is still
// retried, but its message is the page's title, not its markup.
func htmlError(e *Error, h http.Header, body []byte) *Error {
	if !isHTML(h) {
		return e
	}
	e.Message = "the server answered with a web page (" + h.Get("Content-Type") + "), not the API's error"
	if t := htmlTitle(body); t != "" {
		e.Message += ": " + t
	}
	return e
}
