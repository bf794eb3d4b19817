package memory

import (
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/tool"
)

// match returns the one entry of target that oldText identifies. An exact
// substring match wins; failing that, case and runs of whitespace are
// ignored. Identical entries count as one. No match is not_found, listing
// what target holds; several different matches are invalid_arguments,
// listing them, so the model can pick a longer old_text.
func match(entries []string, t Target, oldText, label string) (string, error) {
	needle := strings.TrimSpace(oldText)
	if needle == "" {
		return "", tool.Errorf(tool.CodeInvalidArguments, "%sold_text is empty; give a distinctive substring of the entry to change (for example its first few words)", label)
	}
	found := matches(entries, func(e string) bool { return strings.Contains(e, needle) })
	if len(found) == 0 {
		loose := fold(needle)
		found = matches(entries, func(e string) bool { return strings.Contains(fold(e), loose) })
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if len(entries) == 0 {
			return "", tool.Errorf(tool.CodeNotFound, "%s%s has no entries, so old_text %q matches nothing", label, t, needle)
		}
		e := tool.Errorf(tool.CodeNotFound, "%sold_text %q matches no entry of %s; its entries begin: %s", label, needle, t, quoteAll(previews(entries)))
		e.Data = map[string]any{"entries": previews(entries)}
		return "", e
	}
	e := tool.Errorf(tool.CodeInvalidArguments, "%sold_text %q matches %d different entries of %s: %s; give a longer old_text that only one of them contains", label, needle, len(found), t, quoteAll(previews(found)))
	e.Data = map[string]any{"matches": previews(found)}
	return "", e
}

// matches returns the distinct entries for which ok holds, in file order.
func matches(entries []string, ok func(string) bool) []string {
	var out []string
	for _, e := range entries {
		if ok(e) && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// fold lower-cases s and collapses its whitespace.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// quoteAll renders previews as a readable list: "a…", "b…".
func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}
