package email

import (
	"strings"

	"github.com/emersion/go-message"
)

// A From line is whatever the sender typed. A mail that says it is from
// an allowed address may run tools and answer approval requests, so
// where the receiving mail server records what it checked
// (Authentication-Results, RFC 8601), a mail counts only when that
// record shows the From domain's signature (DKIM) or policy (DMARC)
// passing. Only the record of the server named in Options.AuthservID is
// read: anyone can write such a header into a mail, and RFC 8601 has the
// receiving server remove the ones that claim its name.

// verified reports whether the Authentication-Results of authservID in h
// show DKIM or DMARC passing for fromDomain.
func verified(h message.Header, authservID, fromDomain string) bool {
	// Values are in the mail's order, the top (latest added) first.
	for _, v := range h.Values("Authentication-Results") {
		id, results := parseAuthResults(v)
		if !strings.EqualFold(id, authservID) {
			continue
		}
		// The first record in the server's name is its own (it sits
		// above what came with the mail).
		for _, r := range results {
			if r.result != "pass" {
				continue
			}
			switch r.method {
			case "dmarc":
				if aligned(r.props["header.from"], fromDomain) {
					return true
				}
			case "dkim":
				d := r.props["header.d"]
				if d == "" {
					_, d, _ = strings.Cut(r.props["header.i"], "@")
				}
				if aligned(d, fromDomain) {
					return true
				}
			}
		}
		return false
	}
	return false
}

// aligned reports whether a domain that passed a check stands for the
// From domain: the same domain, or one it is a subdomain of (DMARC's
// relaxed alignment, without the public-suffix list: a check domain of
// one label never counts).
func aligned(checked, fromDomain string) bool {
	checked, fromDomain = strings.ToLower(strings.TrimSpace(checked)), strings.ToLower(fromDomain)
	if checked == "" || fromDomain == "" {
		return false
	}
	if checked == fromDomain {
		return true
	}
	return strings.Contains(checked, ".") && strings.HasSuffix(fromDomain, "."+checked)
}

// authResult is one method's result in an Authentication-Results field.
type authResult struct {
	method, result string
	props          map[string]string
}

// parseAuthResults reads an Authentication-Results value: the authserv-id,
// then "method=result prop=value ..." entries separated by ";". Comments
// in parentheses are dropped.
func parseAuthResults(v string) (string, []authResult) {
	v = dropComments(v)
	parts := strings.Split(v, ";")
	head := strings.Fields(parts[0])
	if len(head) == 0 {
		return "", nil
	}
	var out []authResult
	for _, p := range parts[1:] {
		words := strings.Fields(p)
		if len(words) == 0 {
			continue
		}
		method, result, ok := strings.Cut(words[0], "=")
		if !ok {
			continue
		}
		r := authResult{method: strings.ToLower(method), result: strings.ToLower(result), props: map[string]string{}}
		for _, w := range words[1:] {
			if k, val, ok := strings.Cut(w, "="); ok {
				r.props[strings.ToLower(k)] = strings.Trim(val, `"`)
			}
		}
		out = append(out, r)
	}
	return head[0], out
}

// dropComments removes (comments), which may nest.
func dropComments(v string) string {
	var b strings.Builder
	depth := 0
	for _, c := range v {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}
