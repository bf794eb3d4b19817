package declared

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Variables sent as credentials are secrets whatever their names: they
// are listed for hermes's redactor and masked in traces and results.
func TestCredentialVariables(t *testing.T) {
	api := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
		// An API that echoes what it was sent, as error pages do.
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"token":"` + r.Header.Get("X-Api-Token") + `","key":"` + r.URL.Query().Get("key") + `"}`))
	})
	h := newHome(t)
	h.env["API"] = api.URL
	h.env["ORDERS_ACCESS"] = "acc-5f1e2d3c4b5a"
	h.env["SVC_PARAM"] = "prm-0a9b8c7d6e5f"
	h.env["REGION"] = "eu-west-1"
	h.load("c.yaml", `tools:
  - name: orders
    description: Orders.
    http:
      url: "${API}/orders?region=${REGION}"
      headers: {X-Api-Token: "${ORDERS_ACCESS}"}
      query: {key: "${SVC_PARAM}"}
  - name: basic
    description: Basic auth in the URL.
    http: {url: "https://${SVC_USER:-u}:${SVC_PW:-p}@example.com/x/${PATH_PART:-y}#${FRAG:-z}"}
`)
	o, _ := h.reg.Get("orders")
	b, _ := h.reg.Get("basic")
	if got := o.(*Tool).CredentialNames(); !slices.Equal(got, []string{"ORDERS_ACCESS", "REGION", "SVC_PARAM"}) {
		t.Errorf("orders credentials = %v", got)
	}
	if got := b.(*Tool).CredentialNames(); !slices.Equal(got, []string{"SVC_PW", "SVC_USER"}) {
		t.Errorf("basic credentials = %v", got)
	}
	if got := h.loader.CredentialNames(); !slices.Equal(got, []string{"ORDERS_ACCESS", "REGION", "SVC_PARAM", "SVC_PW", "SVC_USER"}) {
		t.Errorf("loader credentials = %v", got)
	}
	var tr traces
	got := h.call(tr.ctx(), "orders", `{}`)
	shown := tr.String() + " " + jsonOf(t, got)
	for _, v := range []string{"acc-5f1e2d3c4b5a", "prm-0a9b8c7d6e5f"} {
		if strings.Contains(shown, v) {
			t.Errorf("the value %s is shown: %s", v, shown)
		}
	}
	for _, ref := range []string{"X-Api-Token: ${ORDERS_ACCESS}", "${SVC_PARAM}"} {
		if !strings.Contains(shown, ref) {
			t.Errorf("%q not shown in %s", ref, shown)
		}
	}
	if reqs := api.requests(); len(reqs) != 1 || reqs[0].query["key"][0] != "prm-0a9b8c7d6e5f" {
		t.Errorf("the API was not sent the real values: %+v", reqs)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
