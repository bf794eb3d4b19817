package declared

import "fmt"

// Problem is something wrong in a tools file, found when it was loaded:
// a YAML syntax error (the whole file is skipped), or a tool that is not
// valid (that tool is skipped). `hermes tools list` shows them.
type Problem struct {
	// File is the file as shown to people: "tools/orders.yaml" or
	// "config.yaml".
	File string
	// Line is the 1-based line the problem is on; 0 when unknown.
	Line int
	// Tool names the tool, when the problem is one tool's.
	Tool string
	Err  error
}

// Error renders the problem as
// `tools/orders.yaml:14: tool "search_orders": http.method: ...`.
func (p Problem) Error() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.Tool != "" {
		return fmt.Sprintf("%s: tool %q: %v", loc, p.Tool, p.Err)
	}
	return fmt.Sprintf("%s: %v", loc, p.Err)
}

func (p Problem) Unwrap() error { return p.Err }
