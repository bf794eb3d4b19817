package lazy_test

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// wordRE and stopWords cost nothing until a program first splits a
// sentence.
var (
	wordRE    = lazy.Regexp{Expr: `[a-z]+`}
	stopWords = lazy.Value[map[string]bool]{New: func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields("a an the of") {
			m[w] = true
		}
		return m
	}}
)

func Example() {
	var kept []string
	for _, w := range wordRE.Get().FindAllString("the shape of a thing", -1) {
		if !stopWords.Get()[w] {
			kept = append(kept, w)
		}
	}
	fmt.Println(kept)
	// Output: [shape thing]
}
