package ship

import (
	"fmt"
	"strings"
)

// Env is the repeatable -env flag of the bench programs: KEY=VALUE
// settings added to the environment of the hermes they run, such as
// GODEBUG=gctrace=1.
type Env []string

func (e *Env) String() string { return strings.Join(*e, " ") }

// Set adds one KEY=VALUE; anything else is refused with what is expected.
func (e *Env) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*e = append(*e, v)
	return nil
}
