package shell_test

import (
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// Classify sorts a command into hardline, dangerous or safe; the JSON form
// is what `hermes security check` prints.
func ExampleClassify() {
	for _, cmd := range []string{
		"ls -la",
		"rm -rf build",
		`r''m${IFS}-rf${IFS}/`,
		`echo "rm -rf /"`,
	} {
		out, _ := json.Marshal(shell.Classify(cmd))
		fmt.Println(string(out))
	}
	// Output:
	// {"verdict":"safe"}
	// {"verdict":"dangerous","rule":"recursive_delete","description":"recursive delete","match":"rm -rf build"}
	// {"verdict":"hardline","rule":"delete_root","description":"delete of the root filesystem","match":"r''m -rf /"}
	// {"verdict":"safe"}
}
