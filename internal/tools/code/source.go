package code

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
)

// A program runs as the body of an async function, so await works at its
// top level (goja runs scripts, not modules, which alone allow a top-level
// await). The prefix shares the program's first line, so only columns on
// line 1 shift; the suffix starts a line of its own so a trailing comment
// cannot swallow it.
const (
	fileName = "program.js"
	prefix   = "(async function () {"
	suffix   = "\n})()"
)

// compile parses and compiles src wrapped as the body of an async
// function. Syntax errors are invalid_arguments with the position in the
// model's own text.
func compile(src string) (*goja.Program, error) {
	ast, err := parser.ParseFile(nil, fileName, prefix+src+suffix, 0)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, syntaxError(src, list[0].Position.Line, list[0].Position.Column, list[0].Message)
		}
		return nil, tool.Errorf(tool.CodeInvalidArguments, "syntax error: %v", err)
	}
	prg, err := goja.CompileAST(ast, false)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) {
			line, col := position(prefix+src+suffix, se.Offset)
			return nil, syntaxError(src, line, col, se.Message)
		}
		return nil, tool.Errorf(tool.CodeInvalidArguments, "the program does not compile: %v", err)
	}
	return prg, nil
}

// syntaxError reports a syntax error at line:col of the wrapped source,
// translated back to the model's text.
func syntaxError(src string, line, col int, msg string) error {
	if line > strings.Count(src, "\n")+1 {
		// A stray closing brace ends the wrapper early; parsed alone, the
		// program shows where it is. Other errors of the bare program may
		// just be a top-level await, which only the wrapper allows.
		if _, err := parser.ParseFile(nil, fileName, src, 0); err != nil {
			var list parser.ErrorList
			errors.As(err, &list)
			for _, e := range list {
				if e.Message == "Unexpected token }" {
					return tool.Errorf(tool.CodeInvalidArguments, "syntax error at line %d:%d: %s", e.Position.Line, e.Position.Column, e.Message)
				}
			}
		}
		if msg == "Unexpected token }" {
			return tool.Errorf(tool.CodeInvalidArguments, "syntax error: a } closes more than was opened")
		}
		return tool.Errorf(tool.CodeInvalidArguments, "syntax error at the end of the program: %s (is a bracket, brace or string left open?)", msg)
	}
	line, col = userPos(line, col)
	return tool.Errorf(tool.CodeInvalidArguments, "syntax error at line %d:%d: %s", line, col, msg)
}

// userPos maps a line and column of the wrapped source to the model's text.
func userPos(line, col int) (int, int) {
	if line == 1 {
		col = max(col-len(prefix), 1)
	}
	return line, col
}

// position returns the 1-based line and column of a byte offset.
func position(s string, off int) (int, int) {
	off = min(max(off, 0), len(s))
	line := strings.Count(s[:off], "\n") + 1
	return line, off - strings.LastIndexByte(s[:off], '\n')
}

// uncaught is a rejection of the program's promise: an exception the
// program did not catch.
type uncaught struct{ val goja.Value }

func (u *uncaught) Error() string { return "uncaught exception" }

// settled checks the promise the wrapped program returns. A program still
// pending after the run can never finish: with no timers and no events,
// nothing is left that could resolve what it awaits.
func settled(v goja.Value) error {
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return nil
	}
	switch p.State() {
	case goja.PromiseStateRejected:
		return &uncaught{val: p.Result()}
	case goja.PromiseStatePending:
		return errors.New("the program ended while awaiting a promise that can never settle: there are no timers or events here, only tools.* calls, which return at once")
	}
	return nil
}

// framePos finds positions in goja stack traces. It is compiled on first
// use.
var framePos = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(fileName) + `:(\d+):(\d+)`)
}}

// describe turns a failed run into the message for the model: the
// exception and where in the program it was thrown.
func describe(err error) string {
	var (
		u  *uncaught
		so *goja.StackOverflowError
		ex *goja.Exception
	)
	switch {
	case errors.As(err, &so):
		return "maximum call stack size exceeded (runaway recursion?)" + where(err.Error())
	case errors.As(err, &u):
	case errors.As(err, &ex):
		return "uncaught exception: " + ex.Value().String() + where(ex.Error())
	default:
		return err.Error()
	}
	if u.val == nil {
		return "uncaught exception: undefined"
	}
	msg := "uncaught exception: " + u.val.String()
	if obj, ok := u.val.(*goja.Object); ok {
		if stack := obj.Get("stack"); stack != nil && !goja.IsUndefined(stack) {
			msg += where(stack.String())
		}
	}
	return msg
}

// where returns " (at line L:C)" for the first program position in a goja
// stack trace, or "" when it names none.
func where(stack string) string {
	m := framePos.Get().FindStringSubmatch(stack)
	if m == nil {
		return ""
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	line, col = userPos(line, col)
	return fmt.Sprintf(" (at line %d:%d)", line, col)
}

// output collects printed text up to a byte cap, counting what is dropped
// so the model learns how much it did not see.
type output struct {
	b       strings.Builder
	max     int
	dropped int
}

func (o *output) write(s string) {
	if o.dropped > 0 {
		o.dropped += len(s)
		return
	}
	room := o.max - o.b.Len()
	if len(s) <= room {
		o.b.WriteString(s)
		return
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	o.b.WriteString(s[:cut])
	o.dropped = len(s) - cut
}

// String returns the output, with a note at the cut when text was dropped.
func (o *output) String() string {
	if o.dropped == 0 {
		return o.b.String()
	}
	return o.b.String() + fmt.Sprintf("\n[output truncated at %d bytes: %d more bytes not shown; print less, or summarize in the program]\n", o.max, o.dropped)
}
