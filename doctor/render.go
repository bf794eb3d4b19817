package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for a person: one line per result, the fix
// indented under each problem, and a closing count.
func WriteText(w io.Writer, rep Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	counts := map[Status]int{}
	for _, r := range rep.Checks {
		counts[r.Status]++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Status, r.Name, oneLine(r.Finding))
		if r.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", oneLine(r.Fix))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d ok, %d warn, %d fail\n", counts[OK], counts[Warn], counts[Fail])
	return err
}

// WriteJSON writes the report as one JSON object:
// {"status": "ok|warn|fail", "checks": [{"name", "status", "finding", "fix"}]}.
func WriteJSON(w io.Writer, rep Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// oneLine folds a multi-line text (joined errors) into one line, so that
// a finding never breaks the table or forges a line of its own.
func oneLine(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, f := range fields {
		fields[i] = strings.TrimSpace(f)
	}
	return strings.Join(fields, "; ")
}
