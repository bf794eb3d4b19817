package openapi

import (
	"reflect"
	"testing"
)

const secDoc = `openapi: 3.0.3
info: {title: Acme Billing API, version: "3"}
servers: [{url: "https://billing.acme.test"}]
security: [{bearer: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    headerKey: {type: apiKey, in: header, name: X-Api-Key}
    queryKey: {type: apiKey, in: query, name: api_key}
    oauth:
      type: oauth2
      flows: {clientCredentials: {tokenUrl: "https://acme.test/token", scopes: {}}}
    mtls: {type: mutualTLS}
paths:
  /default:
    get: {operationId: byDocument, responses: {'200': {description: ok}}}
  /basic:
    get: {operationId: byBasic, security: [{basic: []}], responses: {'200': {description: ok}}}
  /header:
    get:
      operationId: byHeaderKey
      security: [{headerKey: []}]
      parameters: [{name: X-Api-Key, in: header, schema: {type: string}}]
      responses: {'200': {description: ok}}
  /query:
    get: {operationId: byQueryKey, security: [{queryKey: []}], responses: {'200': {description: ok}}}
  /both:
    get: {operationId: byBothKeys, security: [{headerKey: [], queryKey: []}], responses: {'200': {description: ok}}}
  /oauth:
    get: {operationId: byOAuth, security: [{oauth: [read]}], responses: {'200': {description: ok}}}
  /prefer:
    get: {operationId: preferDirect, security: [{oauth: []}, {headerKey: []}], responses: {'200': {description: ok}}}
  /public:
    get: {operationId: public, security: [], responses: {'200': {description: ok}}}
  /optional:
    get: {operationId: optional, security: [{}, {bearer: []}], responses: {'200': {description: ok}}}
  /mtls:
    get: {operationId: byMTLS, security: [{mtls: []}], responses: {'200': {description: ok}}}
`

func TestImportSecurity(t *testing.T) {
	d := parse(t, secDoc)
	tests := []struct {
		prefix  string
		op      string
		headers map[string]string
		query   map[string]string
	}{
		{"", "by_document", map[string]string{"Authorization": "Bearer ${ACME_BILLING_TOKEN}"}, nil},
		{"acme", "acme_by_document", map[string]string{"Authorization": "Bearer ${ACME_TOKEN}"}, nil},
		{"", "by_basic", map[string]string{"Authorization": "Basic ${ACME_BILLING_BASIC_AUTH}"}, nil},
		// Two apiKey schemes in the document: variables are named after them.
		{"", "by_header_key", map[string]string{"X-Api-Key": "${ACME_BILLING_HEADER_KEY}"}, nil},
		{"", "by_query_key", nil, map[string]string{"api_key": "${ACME_BILLING_QUERY_KEY}"}},
		{"", "by_both_keys", map[string]string{"X-Api-Key": "${ACME_BILLING_HEADER_KEY}"}, map[string]string{"api_key": "${ACME_BILLING_QUERY_KEY}"}},
		{"", "by_o_auth", map[string]string{"Authorization": "Bearer ${ACME_BILLING_TOKEN}"}, nil},
		{"", "prefer_direct", map[string]string{"X-Api-Key": "${ACME_BILLING_HEADER_KEY}"}, nil},
		{"", "public", nil, nil},
		{"", "optional", nil, nil},
		{"", "by_mtls", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			f, _ := mustImport(t, d, Options{Prefix: tt.prefix})
			s := toolNamed(t, f, tt.op)
			if !reflect.DeepEqual(s.HTTP.Headers, tt.headers) {
				t.Errorf("headers = %v, want %v", s.HTTP.Headers, tt.headers)
			}
			if !reflect.DeepEqual(s.HTTP.Query, tt.query) {
				t.Errorf("query = %v, want %v", s.HTTP.Query, tt.query)
			}
			if len(props(t, s)) != 0 {
				t.Errorf("credentials offered as arguments: %v", props(t, s))
			}
		})
	}
}

func TestImportSecurityWarnings(t *testing.T) {
	_, warnings := mustImport(t, parse(t, secDoc), Options{})
	for _, want := range [][]string{
		{"set ACME_BILLING_TOKEN"},
		{"set ACME_BILLING_BASIC_AUTH", "base64"},
		{"set ACME_BILLING_HEADER_KEY", "X-Api-Key"},
		{"byOAuth", "oauth2", "ACME_BILLING_TOKEN", "bearer"},
		{"byMTLS", "mutualTLS", "not supported"},
	} {
		if !hasWarning(warnings, want...) {
			t.Errorf("no warning with %q in %q", want, warnings)
		}
	}
}

func TestImportBaseURL(t *testing.T) {
	d := load(t, "petstore.yaml")
	tests := []struct {
		name string
		opts Options
		url  string
		warn []string
	}{
		{"first server with variable defaults", Options{}, "https://eu.petstore.example.com/v2/pets/{{.petId}}",
			[]string{"lists 2 servers", "https://eu.petstore.example.com/v2"}},
		{"base URL", Options{BaseURL: "http://localhost:8080/v2/"}, "http://localhost:8080/v2/pets/{{.petId}}", nil},
		{"base URL variable", Options{BaseURL: "http://ignored", BaseURLEnv: "PETSTORE_URL"}, "${PETSTORE_URL}/pets/{{.petId}}",
			[]string{"set PETSTORE_URL", "https://eu.petstore.example.com/v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, warnings := mustImport(t, d, tt.opts)
			if got := toolNamed(t, f, "show_pet_by_id").HTTP.URL; got != tt.url {
				t.Errorf("url = %q, want %q", got, tt.url)
			}
			if tt.warn != nil && !hasWarning(warnings, tt.warn...) {
				t.Errorf("no warning with %q in %q", tt.warn, warnings)
			}
		})
	}
}
