package shell

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/sharedtest"
)

// The conformance data comes from Hermes Agent's own tests: each command
// with the verdict they expect. hermes must agree on at least 99 % of the
// commands, and must refuse as hardline every command Hermes refuses so.

// tsvRow is one data row of a conformance file, its fields decoded.
type tsvRow struct {
	line   int
	fields []string
}

// readTSV reads a tab-separated file with a header line. Fields are
// written with Python's escapes (\\, \n, \r, \t, \xHH, \uHHHH), which are
// decoded; nothing else is special (no quoting).
func readTSV(t *testing.T, path string) []tsvRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tsvRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n == 1 || sc.Text() == "" {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		for i, f := range fields {
			if fields[i], err = unescapePython(f); err != nil {
				t.Fatalf("%s:%d: field %d: %v", path, n, i+1, err)
			}
		}
		rows = append(rows, tsvRow{line: n, fields: fields})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// unescapePython decodes the backslash escapes of a Python string literal.
func unescapePython(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case '\\', '\'', '"':
			b.WriteByte(c)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '0':
			b.WriteByte(0)
		case 'x', 'u', 'U':
			n := 2
			if c == 'u' {
				n = 4
			} else if c == 'U' {
				n = 8
			}
			if i+n >= len(s) {
				return "", fmt.Errorf("short \\%c escape in %q", c, s)
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad \\%c escape in %q: %v", c, s, err)
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// openShared returns the path of a shared conformance file, or skips the
// test when the shared directory is not there (a checkout of hermes alone).
func openShared(t *testing.T, name string) string {
	t.Helper()
	return sharedtest.Path(t, name)
}

func TestConformance(t *testing.T) {
	rows := readTSV(t, openShared(t, "hermes-approval-cases.tsv"))
	agree := 0
	for _, r := range rows {
		if len(r.fields) != 3 {
			t.Fatalf("line %d: want 3 fields (command, expected, source_test_file), got %d", r.line, len(r.fields))
		}
		cmd, want := r.fields[0], r.fields[1]
		got := Classify(cmd)
		gotHermes := "safe"
		if got.Level != Safe {
			gotHermes = "dangerous"
		}
		if gotHermes == want {
			agree++
			continue
		}
		t.Logf("disagreement, line %d: %q: want %s, got %s (%s)", r.line, cmd, want, got, r.fields[2])
	}
	t.Logf("agreement with Hermes Agent: %d/%d", agree, len(rows))
	if agree*100 < len(rows)*99 {
		t.Errorf("agreement %d/%d is below 99%%", agree, len(rows))
	}
}

func TestConformanceHardline(t *testing.T) {
	rows := readTSV(t, openShared(t, "hermes-approval-cases-detailed.tsv"))
	blocked, allowed := 0, 0
	for _, r := range rows {
		if len(r.fields) != 5 {
			t.Fatalf("line %d: want 5 fields, got %d", r.line, len(r.fields))
		}
		cmd, detector, result := r.fields[0], r.fields[1], r.fields[2]
		got := Classify(cmd)
		switch {
		case detector == "detect_hardline_command" && result == "hardline_block":
			blocked++
			if got.Level != Hardline {
				t.Errorf("line %d: %q: Hermes refuses it as hardline, got %s (%s)", r.line, cmd, got, r.fields[4])
			}
		case detector == "detect_hardline_command" && result == "not_hardline":
			allowed++
			if got.Level == Hardline {
				t.Errorf("line %d: %q: Hermes does not refuse it as hardline, got %s (%s)", r.line, cmd, got, r.fields[4])
			}
		}
	}
	t.Logf("hardline: %d refused, %d not refused, as Hermes", blocked, allowed)
}
