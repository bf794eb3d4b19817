package terminal

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed process.md
var processDescription string

// Limits of the process tool.
const (
	// DefaultWait and MaxWait bound action wait.
	DefaultWait = 180 * time.Second
	MaxWait     = 600 * time.Second
	// DefaultLogLines is how many lines log shows; MaxLogLines the most
	// a call may ask for.
	DefaultLogLines = 200
	MaxLogLines     = 2000
	// writeTimeout bounds a write to a process that does not read its
	// input (a full pipe would block for good).
	writeTimeout = 5 * time.Second
)

// ProcessTool is the "process" tool: it lists, reads, waits for, kills and
// writes to the background processes its Terminal started. Create it with
// NewProcessTool; the two share one registry of processes.
type ProcessTool struct {
	t *Terminal
}

// NewProcessTool returns the process tool managing t's background
// processes.
func NewProcessTool(t *Terminal) *ProcessTool { return &ProcessTool{t: t} }

// Available is the terminal's: without a shell there are no processes.
func (pt *ProcessTool) Available() error { return pt.t.Available() }

// Spec describes the tool. Its limit sits above MaxWait so a wait returns
// its own answer before the dispatcher gives up.
func (pt *ProcessTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "process",
		Description: processDescription,
		Parameters:  pt.schema(),
		Toolset:     "terminal",
		Timeout:     MaxWait + outerSlack,
		MaxOutput:   2*pt.t.opt.MaxOutputBytes + 4096,
	}
}

func (pt *ProcessTool) schema() json.RawMessage {
	s := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action": map[string]any{
				"type": "string",
				"enum": []string{"list", "poll", "log", "wait", "kill", "write", "submit"},
				"description": "list: this session's processes. poll: status and the output " +
					"since the last poll. log: output lines, paged with offset/limit. wait: block " +
					"until the process exits or timeout passes. kill: stop it and everything it " +
					"started. write: send data to its stdin as is. submit: send data plus a newline.",
			},
			"session_id": map[string]any{
				"type":        "string",
				"description": "The process_id the terminal tool returned (proc_...). Required except for list.",
			},
			"process_id": map[string]any{
				"type":        "string",
				"description": "Same as session_id; give either.",
			},
			"data": map[string]any{
				"type":        "string",
				"description": "For write and submit: the text to send to stdin.",
			},
			"eof": map[string]any{
				"type":        "boolean",
				"description": "For write and submit: close stdin afterwards, for programs that read until end of input.",
			},
			"offset": map[string]any{
				"type":    "integer",
				"minimum": 0,
				"description": "For log: the first line to show, counting from 0 over the whole " +
					"output. Omit it to see the last lines.",
			},
			"limit": map[string]any{
				"type":        "integer",
				"minimum":     1,
				"maximum":     MaxLogLines,
				"description": fmt.Sprintf("For log: how many lines (default %d).", DefaultLogLines),
			},
			"timeout": map[string]any{
				"type":    "integer",
				"minimum": 1,
				"maximum": int(MaxWait / time.Second),
				"description": fmt.Sprintf("For wait: seconds to wait at most (default %d, max %d).",
					int(DefaultWait/time.Second), int(MaxWait/time.Second)),
			},
		},
		"required":             []string{"action"},
		"additionalProperties": false,
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic("terminal: process schema does not marshal: " + err.Error())
	}
	return b
}

// Call runs one action.
func (pt *ProcessTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a processArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are not a JSON object with action and session_id: %v", err)
	}
	inv := tool.InvocationFrom(ctx)
	r := pt.t.procs
	if a.Action == "list" {
		return ListResult{Processes: r.list(inv.SessionID)}, nil
	}
	id := a.SessionID
	if id == "" {
		id = a.ProcessID
	}
	if a.SessionID != "" && a.ProcessID != "" && a.SessionID != a.ProcessID {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "session_id %q and process_id %q differ; give one of them", a.SessionID, a.ProcessID)
	}
	if id == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "action %q needs session_id: the process_id terminal returned; process(action=\"list\") shows them", a.Action)
	}
	p, err := r.get(inv.SessionID, id)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "poll":
		return pt.poll(p), nil
	case "log":
		return pt.log(p, a)
	case "wait":
		return pt.wait(ctx, p, a)
	case "kill":
		return pt.kill(p), nil
	case "write", "submit":
		return pt.write(ctx, inv, p, a)
	}
	return nil, tool.Errorf(tool.CodeInvalidArguments, "unknown action %q; use list, poll, log, wait, kill, write or submit", a.Action)
}

func (pt *ProcessTool) poll(p *bgProc) PollResult {
	r := pt.t.procs
	r.mu.Lock()
	from := p.pollOffset
	exited := p.exited
	r.mu.Unlock()
	text, next, skipped := p.out.since(from, pt.t.opt.MaxOutputBytes, !exited)
	r.mu.Lock()
	if next > p.pollOffset {
		p.pollOffset = next
	}
	r.mu.Unlock()
	res := PollResult{ProcessInfo: r.info(p), Output: text, Skipped: skipped}
	if skipped > 0 {
		res.Note = fmt.Sprintf("%s of new output was left out to keep the answer short; "+
			"action log shows the kept output by line", sizeString(skipped))
	}
	return res
}

func (pt *ProcessTool) log(p *bgProc, a processArgs) (LogResult, error) {
	limit := a.Limit
	if limit == 0 {
		limit = DefaultLogLines
	}
	if limit < 0 || limit > MaxLogLines {
		return LogResult{}, tool.Errorf(tool.CodeInvalidArguments, "limit %d is out of range; give 1 to %d lines", limit, MaxLogLines)
	}
	if a.Offset != nil && *a.Offset < 0 {
		return LogResult{}, tool.Errorf(tool.CodeInvalidArguments, "offset %d is negative; give a line number from 0, or omit it for the last lines", *a.Offset)
	}
	info := pt.t.procs.info(p)
	v := p.out.view()
	lines, first := v.lines()
	total := first + int64(len(lines))
	res := LogResult{ProcessID: p.id, Status: info.Status, TotalLines: total, DroppedLines: first}

	var lo, hi int // the slice of lines shown
	var notes []string
	if a.Offset == nil {
		lo, hi = max(0, len(lines)-limit), len(lines)
	} else {
		off := *a.Offset
		if off < first {
			notes = append(notes, fmt.Sprintf("lines before %d are no longer kept (only the last %s of output is); showing from line %d",
				first, sizeString(int64(pt.t.opt.ProcessOutputBytes)), first))
			off = first
		}
		lo = int(min(off-first, int64(len(lines))))
		hi = min(lo+limit, len(lines))
		if off > total {
			notes = append(notes, fmt.Sprintf("offset %d is past the end: the output has %d lines so far", off, total))
		}
	}
	// Keep the answer within the byte cap: from the start of the page
	// when an offset was given, from its end when showing the last lines.
	budget := pt.t.opt.MaxOutputBytes
	size := 0
	if a.Offset == nil {
		i := hi
		for i > lo && size+len(lines[i-1])+1 <= budget {
			size += len(lines[i-1]) + 1
			i--
		}
		if i == hi && hi > lo {
			i-- // one over-long line is shown rather than none
		}
		lo = i
	} else {
		i := lo
		for i < hi && size+len(lines[i])+1 <= budget {
			size += len(lines[i]) + 1
			i++
		}
		if i == lo && hi > lo {
			i++
		}
		hi = i
	}
	var b strings.Builder
	for _, l := range lines[lo:hi] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	res.Output = b.String()
	res.FromLine = first + int64(lo)
	res.LinesShown = hi - lo
	if next := first + int64(hi); next < total {
		notes = append(notes, fmt.Sprintf("more lines follow: offset %d continues", next))
	}
	res.Note = strings.Join(notes, "; ")
	return res, nil
}

func (pt *ProcessTool) wait(ctx context.Context, p *bgProc, a processArgs) (WaitResult, error) {
	maxSec := int(MaxWait / time.Second)
	if a.Timeout < 0 || a.Timeout > maxSec {
		return WaitResult{}, tool.Errorf(tool.CodeInvalidArguments, "timeout %d is out of range; give seconds from 1 to %d, or omit it for %d", a.Timeout, maxSec, int(DefaultWait/time.Second))
	}
	d := DefaultWait
	if a.Timeout > 0 {
		d = time.Duration(a.Timeout) * time.Second
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	res := WaitResult{}
	select {
	case <-p.done:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		return WaitResult{}, fmt.Errorf("process: wait interrupted; %s keeps running: %w", p.id, ctx.Err())
	}
	res.ProcessInfo = pt.t.procs.info(p)
	out := pt.tail(p)
	res.Output, res.Truncated = out.Text, out.Truncated
	if res.TimedOut {
		res.Note = fmt.Sprintf("still running after %ds; wait again, poll for new output, or kill it", int(d/time.Second))
	}
	return res, nil
}

// tail is the end of p's output, cut as terminal cuts a command's.
func (pt *ProcessTool) tail(p *bgProc) Output {
	v := p.out.view()
	data := v.data
	if len(data) > pt.t.opt.MaxOutputBytes {
		data = data[len(data)-pt.t.opt.MaxOutputBytes:]
	}
	var last byte
	if len(v.data) > 0 {
		last = v.data[len(v.data)-1]
	}
	return cutWithHint(data, v.total, v.newlines, last, pt.t.opt.MaxOutputLines,
		"page through the kept output with action log")
}

func (pt *ProcessTool) kill(p *bgProc) KillResult {
	before := pt.t.procs.info(p)
	pt.t.procs.stop([]*bgProc{p})
	res := KillResult{ProcessInfo: pt.t.procs.info(p)}
	switch {
	case before.Status == "exited":
		res.Note = "the process had already exited; anything it left running was stopped"
	case res.Status == "running":
		res.Note = "the process did not exit even after SIGKILL (it may be stuck in the kernel); check again with poll"
	}
	return res
}
