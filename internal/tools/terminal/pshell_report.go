package terminal

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// After each call the persistent shell writes a report on its report
// pipe (see reportTail): NUL-separated fields between a field "N:nonce"
// and a field "E:nonce", where nonce is the call's own random word. Only
// a record with the call's nonce is the call's report; anything else on
// the pipe is ignored. The command's output never reaches this pipe, so
// it is never parsed for anything.

// maxRecord bounds the fields of one report (variables and function
// definitions); a shell holding more is closed rather than read.
const maxRecord = 16 << 20

// record is one report as it arrived.
type record struct {
	nonce  string
	fields []string
	// tooBig is set when the report passed maxRecord; fields is then
	// empty.
	tooBig bool
}

// readRecords reads reports from r until it ends, sending each complete
// one on out, and closes out. It stops sending once done is closed.
func readRecords(r io.Reader, out chan<- record, done <-chan struct{}) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	var cur *record
	size := 0
	var field []byte
	for {
		chunk, err := br.ReadSlice(0)
		if err == bufio.ErrBufferFull {
			if cur != nil && !cur.tooBig {
				field = append(field, chunk...)
			}
			continue
		}
		if err != nil {
			return
		}
		field = append(field, chunk[:len(chunk)-1]...)
		f := string(field)
		field = field[:0]
		switch {
		case strings.HasPrefix(f, "N:"):
			cur, size = &record{nonce: f[2:]}, 0
		case cur == nil:
			// Not inside a report: ignored.
		case f == "E:"+cur.nonce:
			select {
			case out <- *cur:
			case <-done:
				return
			}
			cur = nil
		case !cur.tooBig:
			if size += len(f); size > maxRecord {
				cur.tooBig, cur.fields = true, nil
				continue
			}
			cur.fields = append(cur.fields, f)
		}
		if cap(field) > 1<<20 {
			field = nil // do not keep a large buffer between reports
		}
	}
}

// report is what one call's record says.
type report struct {
	// status is the code's exit status; ran is false when the shell
	// could not change into the call's directory, so the code did not
	// run.
	status int
	ran    bool
	// cwd is the shell's directory afterwards, "" when pwd could not say
	// (the directory was deleted).
	cwd string
	// vars, funcs, traps and builtins are what declare -p, declare -f,
	// trap -p and enable -a printed.
	vars, funcs, traps, builtins string
}

// parseReport reads a record, reporting false when it is not a whole
// report.
func parseReport(rec record) (report, bool) {
	if rec.tooBig || len(rec.fields) != 7 {
		return report{}, false
	}
	f := rec.fields
	status, err := strconv.Atoi(f[0])
	if err != nil {
		return report{}, false
	}
	return report{
		status:   status,
		ran:      f[1] == "1",
		cwd:      strings.TrimSuffix(f[2], "\n"),
		vars:     f[3],
		funcs:    f[4],
		traps:    f[5],
		builtins: f[6],
	}, true
}

// parseTraps reads trap -p output into the code of each trap by signal
// name (EXIT, SIGTERM …). bash prints each trap as trap -- 'CODE'
// SIGNAL, with a single quote in CODE written '\”; reading stops at
// anything else.
func parseTraps(text string) map[string]string {
	var traps map[string]string
	for text != "" {
		rest, ok := strings.CutPrefix(text, "trap -- ")
		if !ok {
			break
		}
		code, rest, ok := singleQuoted(rest)
		if !ok || !strings.HasPrefix(rest, " ") {
			break
		}
		var signal string
		signal, text, _ = strings.Cut(rest[1:], "\n")
		if traps == nil {
			traps = make(map[string]string)
		}
		traps[signal] = code
	}
	return traps
}

// singleQuoted reads a word of single-quoted strings joined by \' at the
// start of s, as bash's quoting writes it, and returns its value and the
// rest of s.
func singleQuoted(s string) (value, rest string, ok bool) {
	var b strings.Builder
	for {
		if !strings.HasPrefix(s, "'") {
			return "", s, false
		}
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", s, false
		}
		b.WriteString(s[1 : 1+end])
		s = s[2+end:]
		if !strings.HasPrefix(s, `\'`) {
			return b.String(), s, true
		}
		b.WriteByte('\'')
		s = s[2:]
		if !strings.HasPrefix(s, "'") {
			return b.String(), s, true
		}
	}
}
