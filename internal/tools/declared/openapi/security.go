package openapi

import (
	"fmt"
	"strings"
)

// auth is how one operation authenticates: headers and query entries
// whose values come from environment variables, never from arguments, so
// secrets stay out of the model's sight.
type auth struct {
	headers map[string]string
	query   map[string]string
	// env maps each variable used to what it must hold.
	env      map[string]string
	warnings []string
}

// envPrefix is the stem of generated variable names: the tool prefix, or
// the API title without a trailing "API" (Petstore API gives PETSTORE).
func envPrefix(d *Document, prefix string) string {
	stem := upperSnake(strings.Trim(prefix, "_-"))
	if stem == "" {
		words := strings.Split(upperSnake(d.Title), "_")
		if len(words) > 3 {
			words = words[:3]
		}
		for len(words) > 1 && (words[len(words)-1] == "API" || words[len(words)-1] == "") {
			words = words[:len(words)-1]
		}
		stem = strings.Join(words, "_")
	}
	if stem == "" || stem == "API" {
		return "API"
	}
	if stem[0] >= '0' && stem[0] <= '9' {
		stem = "API_" + stem
	}
	return stem
}

// authFor chooses how an operation authenticates. The operation's
// security list overrides the document's; its entries are alternatives,
// and the first one built only of schemes a header or query value can
// express is taken (bearer, basic, apiKey), then one using OAuth2 or
// OpenID Connect, whose token the user must fetch and supply as a bearer
// token.
func authFor(d *Document, o *operation, stem string) auth {
	a := auth{env: map[string]string{}}
	reqs, ok := o.op["security"].([]any)
	if !ok {
		reqs, _ = d.root["security"].([]any)
	}
	if len(reqs) == 0 {
		return a
	}
	schemes := securitySchemes(d)
	var fallback map[string]any
	for _, r := range reqs {
		req, _ := r.(map[string]any)
		if len(req) == 0 {
			return a // authentication is optional for this operation
		}
		direct := true
		for name := range req {
			switch schemeKind(schemes[name]) {
			case "bearer", "basic", "apiKey":
			default:
				direct = false
			}
		}
		if direct {
			a.apply(req, schemes, stem)
			return a
		}
		if fallback == nil {
			fallback = req
		}
	}
	a.apply(fallback, schemes, stem)
	return a
}

// apply sets what every scheme of one security requirement needs.
func (a *auth) apply(req map[string]any, schemes map[string]map[string]any, stem string) {
	apiKeys := 0
	for _, s := range schemes {
		if schemeKind(s) == "apiKey" {
			apiKeys++
		}
	}
	for _, name := range sortedKeys(req) {
		s := schemes[name]
		switch schemeKind(s) {
		case "bearer":
			v := stem + "_TOKEN"
			a.header("Authorization", "Bearer ${"+v+"}")
			a.env[v] = "the API's bearer token"
		case "basic":
			v := stem + "_BASIC_AUTH"
			a.header("Authorization", "Basic ${"+v+"}")
			a.env[v] = "base64 of user:password for HTTP basic authentication"
		case "oauth2":
			v := stem + "_TOKEN"
			a.header("Authorization", "Bearer ${"+v+"}")
			a.env[v] = "an OAuth2 access token"
			a.warnings = append(a.warnings, fmt.Sprintf("security scheme %q is %s: hermes does not run that flow; obtain an access token and set %s, which is sent as a bearer token",
				name, s["type"], v))
		case "apiKey":
			v := stem + "_API_KEY"
			if apiKeys > 1 {
				v = stem + "_" + upperSnake(name)
			}
			key, _ := s["name"].(string)
			a.env[v] = fmt.Sprintf("the API key sent as %s %q", s["in"], key)
			switch s["in"] {
			case "header":
				a.header(key, "${"+v+"}")
			case "query":
				if a.query == nil {
					a.query = map[string]string{}
				}
				a.query[key] = "${" + v + "}"
			case "cookie":
				a.header("Cookie", key+"=${"+v+"}")
			}
		default:
			a.warnings = append(a.warnings, fmt.Sprintf("security scheme %q (type %v) is not supported; add the header it needs by hand", name, s["type"]))
		}
	}
}

func (a *auth) header(name, value string) {
	if a.headers == nil {
		a.headers = map[string]string{}
	}
	a.headers[name] = value
}

// headerSet lists the auth headers in lower case, so parameters of the
// same name are left to the scheme.
func (a *auth) headerSet() map[string]bool {
	set := map[string]bool{}
	for h := range a.headers {
		set[strings.ToLower(h)] = true
	}
	return set
}

// securitySchemes returns components.securitySchemes, refs followed.
func securitySchemes(d *Document) map[string]map[string]any {
	out := map[string]map[string]any{}
	comp, _ := d.root["components"].(map[string]any)
	ss, _ := comp["securitySchemes"].(map[string]any)
	for name, v := range ss {
		s, _ := v.(map[string]any)
		if ref, ok := s["$ref"].(string); ok {
			s, _ = d.lookupShallow(ref)
		}
		if s != nil {
			out[name] = s
		}
	}
	return out
}

// schemeKind classifies a security scheme: bearer, basic, apiKey, oauth2
// (also OpenID Connect), or "" when unknown or unsupported.
func schemeKind(s map[string]any) string {
	switch s["type"] {
	case "http":
		switch strings.ToLower(str(s["scheme"])) {
		case "bearer":
			return "bearer"
		case "basic":
			return "basic"
		}
	case "apiKey":
		switch s["in"] {
		case "header", "query", "cookie":
			return "apiKey"
		}
	case "oauth2", "openIdConnect":
		return "oauth2"
	}
	return ""
}
