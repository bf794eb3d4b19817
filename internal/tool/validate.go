package tool

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// maxValidationLines bounds how many errors one message lists: beyond a
// screenful the model learns nothing new and the context pays for it.
const maxValidationLines = 20

// invalidArguments turns a validation failure into the invalid_arguments
// error the model sees: one line per problem, each with the instance path,
// in the form "at '/limit': minimum: got 0, want 1".
func invalidArguments(toolName string, err error) *Error {
	lines := ValidationMessages(err)
	var b strings.Builder
	fmt.Fprintf(&b, "the arguments of %s do not match its parameters schema; the call did not run:", toolName)
	for _, l := range lines {
		b.WriteString("\n")
		b.WriteString(l)
	}
	b.WriteString("\nFix every error listed and call ")
	b.WriteString(toolName)
	b.WriteString(" again.")
	return &Error{Code: CodeInvalidArguments, Message: b.String()}
}

// ValidationMessages flattens a jsonschema validation error into one short
// line per failed keyword, sorted by instance path so the same mistake
// always reads the same way. Errors of another type give their text.
func ValidationMessages(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{shortError(err)}
	}
	var lines []string
	collectLeaves(ve, &lines)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) > maxValidationLines {
		more := len(lines) - maxValidationLines
		lines = append(lines[:maxValidationLines], fmt.Sprintf("... and %d more errors", more))
	}
	return lines
}

// collectLeaves walks the error tree. Grouping nodes (the schema root,
// $ref, allOf, anyOf, oneOf with no match) only say "validation failed", so
// their causes are reported instead; every other node's own message is the
// useful one and its causes are detail.
func collectLeaves(e *jsonschema.ValidationError, lines *[]string) {
	if len(e.Causes) > 0 && isGrouping(e.ErrorKind) {
		for _, c := range e.Causes {
			collectLeaves(c, lines)
		}
		return
	}
	if _, ok := e.ErrorKind.(*kind.Schema); ok {
		return
	}
	// A copy without causes prints as the single line
	// "at '/path': message".
	leaf := *e
	leaf.Causes = nil
	*lines = append(*lines, leaf.Error())
}

func isGrouping(k jsonschema.ErrorKind) bool {
	switch k := k.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf, *kind.AnyOf:
		return true
	case *kind.OneOf:
		return len(k.Subschemas) == 0
	}
	return false
}
