package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// asker puts setup's questions to the person at the terminal: plain line
// prompts, and prompts for secrets that are not echoed. Lines are read by
// one goroutine so that a question waiting for an answer gives way to
// Ctrl-C (the context) and the terminal's echo is always turned back on.
type asker struct {
	out   io.Writer
	fd    int
	lines chan lineRead
}

// lineRead is one line of input, or why there is none.
type lineRead struct {
	text string
	err  error
}

// newAsker asks on out and reads the answers from in, the terminal whose
// descriptor is fd.
func newAsker(in io.Reader, fd int, out io.Writer) *asker {
	a := &asker{out: out, fd: fd, lines: make(chan lineRead)}
	go func() {
		r := bufio.NewReader(in)
		for {
			text, err := r.ReadString('\n')
			if text != "" || err == nil {
				a.lines <- lineRead{text: strings.TrimRight(text, "\r\n")}
			}
			if err != nil {
				a.lines <- lineRead{err: errors.New("setup: the input ended before setup was done; nothing was written")}
				return
			}
		}
	}()
	return a
}

// read waits for the next line.
func (a *asker) read(ctx context.Context) (string, error) {
	select {
	case l := <-a.lines:
		return l.text, l.err
	case <-ctx.Done():
		fmt.Fprintln(a.out)
		return "", fmt.Errorf("setup: interrupted; nothing was written")
	}
}

// line asks a question; an empty answer takes def, shown in brackets.
func (a *asker) line(ctx context.Context, question, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(a.out, "%s [%s]: ", question, def)
	} else {
		fmt.Fprintf(a.out, "%s: ", question)
	}
	s, err := a.read(ctx)
	s = strings.TrimSpace(s)
	if s == "" {
		s = def
	}
	return s, err
}

// yesNo asks a yes/no question.
func (a *asker) yesNo(ctx context.Context, question string, def bool) (bool, error) {
	d := "y/N"
	if def {
		d = "Y/n"
	}
	for {
		s, err := a.line(ctx, question+" ("+d+")", "")
		if err != nil {
			return false, err
		}
		switch strings.ToLower(s) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintln(a.out, "  Answer y or n.")
	}
}

// secret asks for a secret with the terminal's echo off, switched off
// before the question shows; the answer is never printed, only a newline
// where the person pressed Enter.
func (a *asker) secret(ctx context.Context, question string) (string, error) {
	restore, err := echoOff(a.fd)
	if err != nil {
		return "", fmt.Errorf("setup: %v, so a key typed here would show; give it with --api-key-env NAME (a variable holding it) instead", err)
	}
	defer restore()
	fmt.Fprintf(a.out, "%s: ", question)
	s, err := a.read(ctx)
	fmt.Fprintln(a.out)
	return strings.TrimSpace(s), err
}
