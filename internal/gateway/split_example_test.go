package gateway_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway"
)

// A reply too long for one message is cut at its paragraph breaks, so
// that its code block, which fits in one message, stays whole.
func ExampleSplit() {
	reply := "Run this:\n\n```sh\nmake build\nmake test\n```\n\nThen deploy."
	for _, chunk := range gateway.Split(reply, 32, gateway.UTF16Len) {
		fmt.Printf("%s\n---\n", chunk)
	}
	// Output:
	// Run this:
	// ---
	// ```sh
	// make build
	// make test
	// ```
	// ---
	// Then deploy.
	// ---
}
