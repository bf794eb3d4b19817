package main

import (
	"fmt"
	"io"
	"os"
	"testing"
)

// benchTB lets this program start the servers that exist for tests
// (matrixtest's dendrite, mailtest's Dovecot and Mailpit), which take a
// testing.TB for their temporary directories, cleanups and failures.
// Fatal and Skip end the start by a panic that try turns back into an
// error or a reason to skip; cleanups run on close, last first.
type benchTB struct {
	// TB is nil: the servers use only the methods defined here, and one
	// they start to use panics instead of passing unnoticed.
	testing.TB

	dir      string
	log      io.Writer
	cleanups []func()
	failed   bool
}

// tbStop is what Fatal and Skip panic with.
type tbStop struct {
	skip bool
	msg  string
}

func newBenchTB(dir string, log io.Writer) *benchTB {
	if log == nil {
		log = io.Discard
	}
	return &benchTB{dir: dir, log: log}
}

// try runs start, returning the reason it skipped, or the error it
// failed with.
func (t *benchTB) try(start func()) (skipped string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(tbStop)
			if !ok {
				panic(r)
			}
			if s.skip {
				skipped = s.msg
				return
			}
			err = fmt.Errorf("%s", s.msg)
		}
	}()
	start()
	if t.failed {
		return "", fmt.Errorf("failed to start; see the log")
	}
	return "", nil
}

// close runs the cleanups, last first.
func (t *benchTB) close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}

func (t *benchTB) Helper()          {}
func (t *benchTB) Name() string     { return "bench" }
func (t *benchTB) Failed() bool     { return t.failed }
func (t *benchTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *benchTB) TempDir() string {
	d, err := os.MkdirTemp(t.dir, "tb-")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (t *benchTB) Log(args ...any)                 { fmt.Fprintln(t.log, args...) }
func (t *benchTB) Logf(format string, args ...any) { fmt.Fprintf(t.log, format+"\n", args...) }

func (t *benchTB) Error(args ...any) {
	t.failed = true
	t.Log(args...)
}

func (t *benchTB) Errorf(format string, args ...any) {
	t.failed = true
	t.Logf(format, args...)
}

func (t *benchTB) Fatal(args ...any) {
	t.failed = true
	panic(tbStop{msg: fmt.Sprint(args...)})
}

func (t *benchTB) Fatalf(format string, args ...any) {
	t.failed = true
	panic(tbStop{msg: fmt.Sprintf(format, args...)})
}

func (t *benchTB) Skip(args ...any) { panic(tbStop{skip: true, msg: fmt.Sprint(args...)}) }

func (t *benchTB) Skipf(format string, args ...any) {
	panic(tbStop{skip: true, msg: fmt.Sprintf(format, args...)})
}
