package main

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/logfile"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// logToFile sends the log of an interactive chat to
// $HERMES_HOME/logs/hermes.log, where it does not land on top of the
// prompt; --debug keeps it on stderr, for someone watching it. It returns
// what closes the file.
func logToFile(cmd *cobra.Command, a *cli) (func(), error) {
	if a.debug || a.log != nil {
		return func() {}, nil
	}
	l, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	size, keep := int64(logfile.MaxSize), logfile.Keep
	if mb := l.Config.Logging.FileMaxMB; mb > 0 {
		size = int64(mb) << 20
	}
	if k := l.Config.Logging.FileKeep; k > 0 {
		keep = k
	}
	w, err := logfile.Open(logfile.Path(l.Paths.Home), size, keep)
	if err != nil {
		return nil, err
	}
	a.log = newLogger(slog.NewTextHandler(w, &slog.HandlerOptions{Level: a.logLevel(slog.LevelInfo)}))
	return func() { w.Close() }, nil
}

// defaultLogLines is how many lines /logs and `hermes logs` show.
const defaultLogLines = 20

// maxLogLines bounds what they show.
const maxLogLines = 10000

// logLines parses /logs's and `hermes logs -n`'s count.
func logLines(what, arg string) (int, error) {
	if arg == "" {
		return defaultLogLines, nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > maxLogLines {
		return 0, fmt.Errorf("%s: %q is not a number of lines; give 1 to %d (default %d)", what, arg, maxLogLines, defaultLogLines)
	}
	return n, nil
}

// printLog writes the last n lines of the log file at path to out, with
// every secret hermes knows (r) or recognizes by format replaced and
// control characters escaped, so a log line can neither leak a key nor
// move the terminal's cursor.
// It returns the offset in the file the lines end at.
func printLog(out io.Writer, path string, n int, r interface{ Redact(string) string }) (int64, error) {
	lines, end, err := logfile.Tail(path, n)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(lines) == 0 {
		fmt.Fprintf(out, "the log is empty (%s)\n", path)
	}
	for _, l := range lines {
		fmt.Fprintln(out, showLogLine(l, r))
	}
	return end, nil
}

// showLogLine is one log line as it may be shown.
func showLogLine(l string, r interface{ Redact(string) string }) string {
	l = redact.Secrets(l)
	if r != nil {
		l = r.Redact(l)
	}
	return safety.Escape(strings.TrimRight(l, "\r"))
}

// logs answers /logs [n]: the last n lines of hermes's log.
func (s *replState) logs(arg string) {
	n, err := logLines("/logs", strings.TrimSpace(arg))
	if err != nil {
		fmt.Fprintln(s.out, err)
		return
	}
	if _, err := printLog(s.out, logfile.Path(s.h.Config.Paths.Home), n, s.h.Redactor()); err != nil {
		fmt.Fprintln(s.out, "/logs:", err)
	}
}
