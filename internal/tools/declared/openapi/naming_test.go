package openapi

import (
	"strings"
	"testing"
)

func TestSnake(t *testing.T) {
	tests := map[string]string{
		"listPets":          "list_pets",
		"get-user.byId":     "get_user_by_id",
		"HTTPServerStatus":  "http_server_status",
		"getV2Users":        "get_v2_users",
		"already_snake":     "already_snake",
		"/pets/{petId}":     "pets_pet_id",
		"  Spaced  Out  ":   "spaced_out",
		"X-Request-ID":      "x_request_id",
		"createOAuthClient": "create_o_auth_client",
		"ünïcode":           "n_code",
	}
	for in, want := range tests {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUniqueNames(t *testing.T) {
	n := newNames(maxToolName)
	if got := n.unique("list_pets"); got != "list_pets" {
		t.Fatalf("first = %q", got)
	}
	if got := n.unique("list_pets"); got != "list_pets_2" {
		t.Fatalf("second = %q, want list_pets_2", got)
	}
	if got := n.unique("list_pets"); got != "list_pets_3" {
		t.Fatalf("third = %q, want list_pets_3", got)
	}
	long := strings.Repeat("a", 70)
	first, second := n.unique(long), n.unique(long)
	if len(first) != 64 || len(second) != 64 || first == second || !strings.HasSuffix(second, "_2") {
		t.Fatalf("long names %q (%d) and %q (%d): want two distinct 64-character names", first, len(first), second, len(second))
	}
}

func TestNormalizePrefix(t *testing.T) {
	for in, want := range map[string]string{"": "", "petstore": "petstore_", "petstore_": "petstore_", "pet-": "pet-", "my api": "my_api_"} {
		if got := normalizePrefix(in); got != want {
			t.Errorf("normalizePrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArgName(t *testing.T) {
	for in, want := range map[string]string{"petId": "petId", "X-Request-ID": "x_request_id", "page[size]": "page_size", "2fa": "p_2fa", "_x": "_x"} {
		if got := argName(in); got != want {
			t.Errorf("argName(%q) = %q, want %q", in, got, want)
		}
	}
}
