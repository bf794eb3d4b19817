package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
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
	fields := strings.Split(clean(s), "\n")
	for i, f := range fields {
		fields[i] = strings.TrimSpace(f)
	}
	return strings.Join(slices.DeleteFunc(fields, func(f string) bool { return f == "" }), "; ")
}

// clean shows every control character but the newline as a Go escape (a
// tab as a space) and replaces bytes that are not UTF-8: a finding may
// quote what a server answered, and a terminal must not take it as a
// command, whether it reads the text or the JSON report.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case needsEscape(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsEscape reports a control character other than the newline, or a
// Unicode line or paragraph separator.
func needsEscape(r rune) bool {
	return r != '\n' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029')
}
