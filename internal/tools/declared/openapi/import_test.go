package openapi

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestImportInclude(t *testing.T) {
	d := load(t, "petstore.yaml")
	tests := []struct {
		name    string
		include []string
		want    []string
	}{
		{"operationId", []string{"listPets"}, []string{"list_pets"}},
		{"snake name", []string{"show_pet_by_id"}, []string{"show_pet_by_id"}},
		{"glob", []string{"list*"}, []string{"list_pets", "list_categories", "list_orders"}},
		{"method and path", []string{"GET /pets/{petId}", "delete /orders/{orderId}"}, []string{"show_pet_by_id", "cancel_order"}},
		{"tag", []string{"tag:orders"}, []string{"list_orders", "place_order", "get_order", "cancel_order"}},
		{"no operationId", []string{"GET /health"}, []string{"get_health"}},
		{"document order, not include order", []string{"getOrder", "listPets"}, []string{"list_pets", "get_order"}},
		{"deprecated named explicitly", []string{"cancelOrderLegacy"}, []string{"cancel_order_legacy"}},
		{"overlapping entries", []string{"listPets", "tag:pets", "list*"}, []string{"list_pets", "create_pet", "show_pet_by_id", "update_pet",
			"patch_pet", "delete_pet", "update_pet_with_form", "list_categories", "create_category", "list_orders"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := mustImport(t, d, Options{Include: tt.include})
			if got := toolNames(f); !slices.Equal(got, tt.want) {
				t.Fatalf("tools = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestImportErrors(t *testing.T) {
	pet := load(t, "petstore.yaml")
	external := parse(t, minimal+`paths:
  /money:
    get:
      operationId: getMoney
      responses: {'200': {description: ok}}
      parameters:
        - $ref: 'common.yaml#/components/parameters/Currency'
  /ok:
    get: {operationId: fine, responses: {'200': {description: ok}}}
`)
	relative := parse(t, "openapi: 3.0.0\ninfo: {title: R, version: '1'}\nservers: [{url: /api}]\npaths:\n  /x:\n    get: {operationId: x, responses: {'200': {description: ok}}}\n")
	tests := []struct {
		name string
		d    *Document
		opts Options
		want []string
	}{
		{"include matching nothing", pet, Options{Include: []string{"listPet"}}, []string{`"listPet" matches no operation`, "listPets", "createPet", "GET /health"}},
		{"glob matching nothing", pet, Options{Include: []string{"user*"}}, []string{`"user*" matches no operation`}},
		{"unknown tag", pet, Options{Include: []string{"tag:users"}}, []string{`"tag:users"`}},
		{"external ref named explicitly", external, Options{Include: []string{"getMoney"}}, []string{"common.yaml#/components/parameters/Currency", "bundle"}},
		{"explicitly named multipart", pet, Options{Include: []string{"uploadPetPhoto"}}, []string{"multipart/form-data is not supported"}},
		{"relative server", relative, Options{}, []string{"no operation could be imported"}},
		{"bad base URL variable", pet, Options{BaseURLEnv: "PET-URL"}, []string{`"PET-URL" is not a valid environment variable name`}},
		{"nothing left", pet, Options{Include: []string{"uploadPetPhoto*"}}, []string{"no operation could be imported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Import(tt.d, tt.opts)
			if err == nil {
				t.Fatal("Import succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestImportSkipsWithWarnings(t *testing.T) {
	ext := parse(t, minimal+`paths:
  /money:
    get:
      operationId: getMoney
      responses: {'200': {description: ok}}
      parameters:
        - $ref: 'common.yaml#/components/parameters/Currency'
  /ok:
    get: {operationId: fine, responses: {'200': {description: ok}}}
`)
	f, warnings := mustImport(t, ext, Options{})
	if got := toolNames(f); !slices.Equal(got, []string{"fine"}) {
		t.Fatalf("tools = %v, want [fine]", got)
	}
	if !hasWarning(warnings, "getMoney", "skipped", "common.yaml#/components/parameters/Currency") {
		t.Fatalf("no warning naming the external ref: %q", warnings)
	}

	f, warnings = mustImport(t, load(t, "petstore.yaml"), Options{})
	names := toolNames(f)
	for _, skipped := range []string{"cancel_order_legacy", "upload_pet_photo"} {
		if slices.Contains(names, skipped) {
			t.Errorf("%s imported, want it skipped", skipped)
		}
	}
	if !hasWarning(warnings, "cancelOrderLegacy", "deprecated, skipped") {
		t.Errorf("no warning for the skipped deprecated operation: %q", warnings)
	}
	if !hasWarning(warnings, "uploadPetPhoto", "multipart/form-data") {
		t.Errorf("no warning for the multipart operation: %q", warnings)
	}
	if !hasWarning(warnings, "write operation", "create_pet", "approval") {
		t.Errorf("no warning about write operations: %q", warnings)
	}
	for _, s := range f.Tools {
		if s.Approval != "" {
			t.Errorf("%s: approval = %q, want it left to the user", s.Name, s.Approval)
		}
		if get := s.HTTP.Method == "GET"; s.Idempotent != get {
			t.Errorf("%s: idempotent = %v for %s", s.Name, s.Idempotent, s.HTTP.Method)
		}
	}
}

func TestImportDeprecatedExplicitly(t *testing.T) {
	f, warnings := mustImport(t, load(t, "petstore.yaml"), Options{Include: []string{"POST /orders/{orderId}/cancel"}})
	s := toolNamed(t, f, "cancel_order_legacy")
	if !strings.Contains(s.Description, "deprecated") {
		t.Errorf("description does not say deprecated: %q", s.Description)
	}
	if !hasWarning(warnings, "deprecated", "imported because it was named") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestImportNaming(t *testing.T) {
	d := parse(t, minimal+`paths:
  /a:
    get: {operationId: listPets, responses: {'200': {description: ok}}}
  /b:
    get: {operationId: list_pets, responses: {'200': {description: ok}}}
  /c/{id}/d.json:
    get: {responses: {'200': {description: ok}}, parameters: [{name: id, in: path, required: true, schema: {type: string}}]}
  /e:
    get:
      operationId: thisOperationIdIsFarTooLongForAnyModelProviderToAcceptAsAFunctionNameReally
      responses: {'200': {description: ok}}
`)
	f, warnings := mustImport(t, d, Options{Prefix: "shop"})
	want := []string{"shop_list_pets", "shop_list_pets_2", "shop_get_c_id_d_json",
		"shop_this_operation_id_is_far_too_long_for_any_model_provider_to"}
	if got := toolNames(f); !slices.Equal(got, want) {
		t.Fatalf("names = %q\nwant    %q", got, want)
	}
	if !hasWarning(warnings, "shop_list_pets was taken", "shop_list_pets_2") {
		t.Fatalf("no collision warning: %q", warnings)
	}
	for _, n := range toolNames(f) {
		if len(n) > 64 {
			t.Errorf("%s is %d characters", n, len(n))
		}
	}
}

func TestImportParameters(t *testing.T) {
	f, warnings := mustImport(t, load(t, "petstore.yaml"), Options{})

	// Path-level parameters are merged; the operation's verbose wins.
	show := toolNamed(t, f, "show_pet_by_id")
	p := props(t, show)
	if desc := p["verbose"].(map[string]any)["description"]; desc != "Include the pet's order history in the answer." {
		t.Errorf("verbose comes from the path item, not the operation: %v", desc)
	}
	if _, has := p["verbose"].(map[string]any)["default"]; has {
		t.Errorf("the path item's default leaked into the operation's verbose: %v", p["verbose"])
	}
	if show.HTTP.URL != "https://eu.petstore.example.com/v2/pets/{{.petId}}" {
		t.Errorf("url = %q", show.HTTP.URL)
	}
	if !slices.Equal(required(show), []string{"petId"}) {
		t.Errorf("required = %v, want [petId]", required(show))
	}
	if show.HTTP.Query["verbose"] != "{{.verbose}}" {
		t.Errorf("query = %v", show.HTTP.Query)
	}

	// Header parameters become arguments with template-safe names;
	// Authorization is never an argument.
	list := toolNamed(t, f, "list_pets")
	p = props(t, list)
	if _, ok := p["x_request_id"]; !ok {
		t.Errorf("X-Request-ID header parameter missing: %v", p)
	}
	if _, ok := p["Authorization"]; ok {
		t.Errorf("Authorization offered as an argument")
	}
	if list.HTTP.Headers["X-Request-ID"] != "{{.x_request_id}}" || list.HTTP.Headers["Authorization"] != "Bearer ${PETSTORE_TOKEN}" {
		t.Errorf("headers = %v", list.HTTP.Headers)
	}
	limit := p["limit"].(map[string]any)
	if limit["type"] != "integer" || limit["default"] != 20 || limit["maximum"] != 100 || limit["description"] != "How many items to return at most." {
		t.Errorf("limit = %v", limit)
	}
	if status := p["status"].(map[string]any); status["type"] != "array" || list.HTTP.Query["status"] != `{{join .status ","}}` {
		t.Errorf("list query parameter: schema %v, template %q", status, list.HTTP.Query["status"])
	}
	if !hasWarning(warnings, `"status" is a list`, "comma-separated") {
		t.Errorf("no warning about the list query parameter: %q", warnings)
	}
	if list.HTTP.Expect[0] != 200 || len(list.HTTP.Expect) != 1 {
		t.Errorf("expect = %v", list.HTTP.Expect)
	}
	if !strings.HasPrefix(list.Description, "List pets.\n\nReturns the pets in the shop") || !strings.HasSuffix(list.Description, "Returns a list of Pet.") {
		t.Errorf("description = %q", list.Description)
	}

	// A parameter-level example becomes examples; $ref'd schemas resolve.
	orders := props(t, toolNamed(t, f, "list_orders"))
	if ex := orders["since"].(map[string]any)["examples"]; !reflect.DeepEqual(ex, []any{"2024-05-01T00:00:00Z"}) {
		t.Errorf("since examples = %v", ex)
	}
	if st := orders["status"].(map[string]any); !reflect.DeepEqual(st["enum"], []any{"placed", "approved", "delivered"}) {
		t.Errorf("status = %v", st)
	}

	del := toolNamed(t, f, "delete_pet")
	if !slices.Equal(required(del), []string{"petId", "if_match"}) || del.HTTP.Headers["If-Match"] != "{{.if_match}}" {
		t.Errorf("delete_pet required %v headers %v", required(del), del.HTTP.Headers)
	}
	if !strings.Contains(del.Description, "Not for sold pets") {
		t.Errorf("the document's own 'not for' advice is lost: %q", del.Description)
	}
	if del.HTTP.Expect[0] != 204 {
		t.Errorf("expect = %v", del.HTTP.Expect)
	}
	if health := toolNamed(t, f, "get_health"); health.HTTP.Expect != nil || health.HTTP.Headers != nil {
		t.Errorf("get_health: expect %v (2XX means any) headers %v (security: [] means none)", health.HTTP.Expect, health.HTTP.Headers)
	}
}

func TestImportBodies(t *testing.T) {
	f, _ := mustImport(t, load(t, "petstore.yaml"), Options{})

	create := toolNamed(t, f, "create_pet")
	wantBody := map[string]any{"category": "{{.category}}", "name": "{{.name}}", "status": "{{.status}}", "tag": "{{.tag}}", "weight": "{{.weight}}"}
	if !reflect.DeepEqual(create.HTTP.Body, wantBody) {
		t.Errorf("create_pet body = %v", create.HTTP.Body)
	}
	if !slices.Equal(required(create), []string{"name"}) {
		t.Errorf("required = %v", required(create))
	}
	cat := props(t, create)["category"].(map[string]any)
	if parent := cat["properties"].(map[string]any)["parent"].(map[string]any); parent["description"] != "(recursive: Category)" {
		t.Errorf("recursive Category not cut: %v", parent)
	}
	if _, has := cat["properties"].(map[string]any)["id"]; has {
		t.Errorf("readOnly id offered as an argument: %v", cat)
	}

	// allOf [NewPet, {id readOnly}] is flattened and merged with the path
	// parameter; id is left out because it is readOnly.
	update := toolNamed(t, f, "update_pet")
	if !slices.Equal(required(update), []string{"petId", "name"}) {
		t.Errorf("update_pet required = %v", required(update))
	}
	if _, has := props(t, update)["id"]; has {
		t.Errorf("readOnly id offered as an argument")
	}

	form := toolNamed(t, f, "update_pet_with_form")
	if form.HTTP.Body != "name={{urlquery .name}}{{with .status}}&status={{urlquery .}}{{end}}" || form.HTTP.ContentType != "application/x-www-form-urlencoded" {
		t.Errorf("form body = %q (%s)", form.HTTP.Body, form.HTTP.ContentType)
	}

	order := props(t, toolNamed(t, f, "place_order"))
	line := order["lines"].(map[string]any)["items"].(map[string]any)
	if !reflect.DeepEqual(line["required"], []any{"petId", "quantity"}) {
		t.Errorf("nested OrderLine not resolved: %v", line)
	}

	todo, _ := mustImport(t, load(t, "todo.json"), Options{})
	tags := toolNamed(t, todo, "set_todo_tags")
	if tags.HTTP.Body != "{{json .body}}" || props(t, tags)["body"].(map[string]any)["type"] != "array" {
		t.Errorf("array body: %v %v", tags.HTTP.Body, props(t, tags))
	}
}

func TestImportBodyNameClash(t *testing.T) {
	d := parse(t, minimal+`paths:
  /shops/{name}/items:
    post:
      operationId: addItem
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
        - {name: dry-run, in: query, schema: {type: boolean}}
      requestBody:
        content:
          text/csv: {schema: {type: string}}
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
                price: {type: number}
      responses: {'201': {description: created}}
  /notes:
    post:
      operationId: addNote
      requestBody:
        required: true
        content:
          text/plain: {schema: {type: string}}
      responses: {'201': {description: created}}
`)
	f, _ := mustImport(t, d, Options{})
	add := toolNamed(t, f, "add_item")
	want := map[string]any{"name": "{{.body_name}}", "price": "{{.price}}"}
	if !reflect.DeepEqual(add.HTTP.Body, want) {
		t.Errorf("body = %v, want %v", add.HTTP.Body, want)
	}
	if !slices.Equal(required(add), []string{"name", "body_name"}) {
		t.Errorf("required = %v", required(add))
	}
	if add.HTTP.URL != "https://mini.example.com/shops/{{.name}}/items" || add.HTTP.Query["dry-run"] != "{{.dry_run}}" {
		t.Errorf("url %q query %v", add.HTTP.URL, add.HTTP.Query)
	}
	note := toolNamed(t, f, "add_note")
	if note.HTTP.Body != "{{.body}}" || note.HTTP.ContentType != "text/plain" || !slices.Equal(required(note), []string{"body"}) {
		t.Errorf("text body = %q %q required %v", note.HTTP.Body, note.HTTP.ContentType, required(note))
	}
}

func TestImportSkipsSchemasThatDoNotCompile(t *testing.T) {
	d := parse(t, minimal+`paths:
  /bad:
    get:
      operationId: bad
      parameters: [{name: q, in: query, schema: {type: string, pattern: "([a-z"}}]
      responses: {'200': {description: ok}}
  /good:
    get: {operationId: good, responses: {'200': {description: ok}}}
`)
	f, warnings := mustImport(t, d, Options{})
	if got := toolNames(f); !slices.Equal(got, []string{"good"}) {
		t.Fatalf("tools = %v, want [good]", got)
	}
	if !hasWarning(warnings, "GET /bad (bad): skipped", "not a valid JSON Schema") {
		t.Fatalf("warnings = %q", warnings)
	}
}
