package terminal

import (
	_ "embed"
)

// processArgs are the process tool's arguments, already checked
// against its schema by the dispatcher.
type processArgs struct {
	Action    string  `json:"action"`
	SessionID string  `json:"session_id"`
	ProcessID string  `json:"process_id"`
	Data      *string `json:"data"`
	EOF       bool    `json:"eof"`
	Offset    *int64  `json:"offset"`
	Limit     int     `json:"limit"`
	Timeout   int     `json:"timeout"`
}

// PollResult is the data of poll.
type PollResult struct {
	ProcessInfo
	// Output is what the process wrote since the previous poll, its
	// newest part when there was more than a call returns.
	Output string `json:"output"`
	// Skipped counts new bytes not in Output (cut, or already dropped
	// from the kept output); log still has what was cut but kept.
	Skipped int64  `json:"skipped_bytes,omitempty"`
	Note    string `json:"note,omitempty"`
}

// LogResult is the data of log.
type LogResult struct {
	ProcessID string `json:"process_id"`
	Status    string `json:"status"`
	// Output holds the lines shown, each ending in a newline.
	Output string `json:"output"`
	// FromLine is the number of the first line shown, counting from 0
	// over the whole output; LinesShown how many are shown.
	FromLine   int64 `json:"from_line"`
	LinesShown int   `json:"lines_shown"`
	// TotalLines counts the lines of the whole output; DroppedLines the
	// first ones no longer kept (only the newest output is).
	TotalLines   int64  `json:"total_lines"`
	DroppedLines int64  `json:"dropped_lines,omitempty"`
	Note         string `json:"note,omitempty"`
}

// WaitResult is the data of wait.
type WaitResult struct {
	ProcessInfo
	// TimedOut is true when the process was still running at timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Output is the tail of the output, cut like terminal's.
	Output    string `json:"output"`
	Truncated bool   `json:"truncated,omitempty"`
	Note      string `json:"note,omitempty"`
}

// KillResult is the data of kill.
type KillResult struct {
	ProcessInfo
	Note string `json:"note,omitempty"`
}

// WriteResult is the data of write and submit.
type WriteResult struct {
	ProcessID    string `json:"process_id"`
	BytesWritten int    `json:"bytes_written"`
	StdinClosed  bool   `json:"stdin_closed,omitempty"`
}

// ListResult is the data of list.
type ListResult struct {
	Processes []ProcessInfo `json:"processes"`
}
