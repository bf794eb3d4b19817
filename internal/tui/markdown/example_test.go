package markdown_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/tui/markdown"
)

// Render draws a reply for a terminal 30 columns wide without color.
func ExampleRender() {
	reply := "## Done\n\nThe **tests** pass. Run `go test ./...` again after\nthe merge.\n\n- [x] build\n- [ ] deploy\n\nEscapes are shown, never run: \x1b[2J"
	fmt.Println(markdown.Render(reply, 30, markdown.NoColor()))
	// Output:
	// ## Done
	//
	// The **tests** pass. Run `go
	// test ./...` again after the
	// merge.
	//
	// ☑ build
	// ☐ deploy
	//
	// Escapes are shown, never run:
	// ␛[2J
}

// A Renderer kept for one streaming reply draws an open code fence as code
// so far, and reuses the closed paragraph above it.
func ExampleRenderer_Render() {
	rr := markdown.New(markdown.NoColor())
	reply := "First paragraph.\n\n```sh\necho hi\n```\n"
	for _, n := range []int{18, 28, len(reply)} {
		fmt.Printf("%q\n", rr.Render(reply[:n], 40))
	}
	// Output:
	// "First paragraph."
	// "First paragraph.\n\nsh\n  echo"
	// "First paragraph.\n\nsh\n  echo hi"
}
