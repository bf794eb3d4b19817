package openapi_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/tools/declared/openapi"
)

func Example() {
	doc, err := openapi.Parse([]byte(`
openapi: 3.0.3
info: {title: Orders API, version: "1"}
servers: [{url: "https://orders.example.com"}]
security: [{token: []}]
components:
  securitySchemes:
    token: {type: http, scheme: bearer}
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      summary: Find an order by id
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses: {"200": {description: The order}}
`))
	if err != nil {
		panic(err)
	}
	f, warnings, err := openapi.Import(doc, openapi.Options{Prefix: "shop", BaseURLEnv: "SHOP_URL"})
	if err != nil {
		panic(err)
	}
	t := f.Tools[0]
	fmt.Println(t.Name, t.HTTP.Method, t.HTTP.URL)
	fmt.Println(t.HTTP.Headers["Authorization"])
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// shop_get_order GET ${SHOP_URL}/orders/{{.id}}
	// Bearer ${SHOP_TOKEN}
	// set SHOP_TOKEN: the API's bearer token
	// set SHOP_URL: the API's base URL (the document says https://orders.example.com)
}
