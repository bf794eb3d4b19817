package notify

import (
	"fmt"
	"net/url"
	"strings"
)

// acceptedForms lists the target specs Parse understands, for errors.
const acceptedForms = "wecom:<robot key or webhook URL>, feishu:<webhook URL>[#secret], " +
	"dingtalk:<webhook URL>[#secret], slack:<incoming webhook URL>, telegram:<chat_id>, " +
	"email:<address>[,<address>...], webhook:<URL>, local[:<name>]"

// Parse turns a spec from a job's deliver: list into a Target. Errors
// name the spec with its secrets masked and list the accepted forms.
func Parse(spec string, cfg Config) (Target, error) {
	spec = strings.TrimSpace(spec)
	kind, rest, _ := strings.Cut(spec, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	rest = strings.TrimSpace(rest)
	bad := func(why string) error {
		return fmt.Errorf("notify: target %q: %s; accepted forms: %s", maskSpec(kind, rest), why, acceptedForms)
	}
	if rest == "" && kind != "local" {
		if kind == "" {
			return nil, bad("empty target")
		}
		return nil, bad("missing the part after " + kind + ":")
	}
	var (
		t   Target
		err error
	)
	switch kind {
	case "wecom":
		t, err = newWeCom(rest, cfg)
	case "feishu":
		t, err = newFeishu(rest, cfg)
	case "dingtalk":
		t, err = newDingTalk(rest, cfg)
	case "slack":
		t, err = newSlack(rest, cfg)
	case "telegram":
		t, err = newTelegram(rest, cfg)
	case "email":
		t, err = newEmail(rest, cfg)
	case "webhook":
		t, err = newWebhook(rest, cfg)
	case "local":
		t, err = newLocalSpec(rest, cfg)
	default:
		return nil, bad("unknown kind " + fmt.Sprintf("%q", kind))
	}
	if err != nil {
		return nil, bad(err.Error())
	}
	return t, nil
}

// Mask shows a delivery target as it may be printed: its kind and where
// it goes, without the key or token it carries ("wecom:****cdef",
// "webhook:https://hooks.example.com/****"); telegram chat ids, addresses
// and local files are shown whole.
func Mask(spec string) string {
	kind, rest, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok {
		return kind
	}
	return maskSpec(kind, rest)
}

// maskSpec shows a spec in an error without its secrets.
func maskSpec(kind, rest string) string {
	switch kind {
	case "telegram", "email", "local":
		return kind + ":" + rest
	case "":
		return ""
	}
	if u, err := url.Parse(rest); err == nil && u.Scheme != "" && u.Host != "" {
		return kind + ":" + maskURL(u)
	}
	return kind + ":" + tail(rest)
}

// maskURL shows a webhook URL as scheme and host only: the path and the
// query of a webhook are its key.
func maskURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + "/****"
}

// parseHTTPURL accepts an absolute http(s) URL.
func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("not an http(s) URL")
	}
	return u, nil
}

// isURL tells a full webhook URL from a bare key or token.
func isURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// splitSecret separates "URL#secret". A URL's own fragment is never
// meaningful to a webhook, so '#' always starts the signing secret.
func splitSecret(s string) (string, string) {
	base, secret, _ := strings.Cut(s, "#")
	return base, secret
}
