package gateway_test

import (
	"fmt"

	"github.com/hermes-go/hermes/gateway"
)

// A reply too long for one message is cut at line and paragraph breaks;
// the code block cut in two is closed and opened again, so that each
// message shows code as code.
func ExampleSplit() {
	reply := "Run this:\n\n```sh\nmake build\nmake test\n```\n\nThen deploy."
	for _, chunk := range gateway.Split(reply, 32, gateway.UTF16Len) {
		fmt.Printf("%s\n---\n", chunk)
	}
	// Output:
	// Run this:
	//
	// ```sh
	// make build
	// ```
	// ---
	// ```sh
	// make test
	// ```
	// ---
	// Then deploy.
	// ---
}
