package batch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// The files of a run's directory, named as Hermes's batch runner names
// them.
const (
	TrajectoriesFile = "trajectories.jsonl"
	CheckpointFile   = "checkpoint.json"
	StatisticsFile   = "statistics.json"
	// InputFile records which prompts the run is of, so that a resume
	// with another file is refused instead of mixing the two.
	InputFile = "input.json"
)

// output is a run's trajectories.jsonl, appended to by one writer. It is
// the run's only record of what finished: a line is written whole and
// synced before its prompt counts as done, and resuming reads the done
// prompts back from it, so the output and the checkpoint cannot
// disagree whenever the process is killed. checkpoint.json is derived
// from it for people and tools that look, never read back.
type output struct {
	mu   sync.Mutex
	dir  string
	f    *os.File
	done map[int]bool
	run  string
}

// ErrExists is returned when a run's output exists and resuming was not
// asked for.
var ErrExists = errors.New("the run has output already")

// openOutput opens dir's trajectories, creating dir. With resume it
// reads the prompts already done and cuts off a line a kill left half
// written; without, existing output is an error, so that a run is never
// mixed into another by mistake.
func openOutput(dir, run string, resume bool) (*output, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, TrajectoriesFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	o := &output{dir: dir, f: f, done: map[int]bool{}, run: run}
	good, err := o.scan()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(o.done) > 0 && !resume {
		f.Close()
		return nil, fmt.Errorf("%s holds %d finished prompts: %w; pass --resume to go on with it, or name another --run", path, len(o.done), ErrExists)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return o, nil
}

// scan reads the finished prompts and returns the length of the file's
// whole lines: what follows the last newline, or a line that does not
// decode, is what a kill cut off.
func (o *output) scan() (int64, error) {
	r := bufio.NewReader(o.f)
	var good int64
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return good, nil
		}
		if err != nil {
			return 0, err
		}
		var e struct {
			PromptIndex *int `json:"prompt_index"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &e) != nil || e.PromptIndex == nil {
			return good, nil
		}
		o.done[*e.PromptIndex] = true
		good += int64(len(line))
	}
}

// isDone reports whether prompt i has its entry already.
func (o *output) isDone(i int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.done[i]
}

// write appends e as one line and syncs it; only then is the prompt
// done.
func (o *output) write(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done[e.PromptIndex] {
		return nil
	}
	if _, err := o.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := o.f.Sync(); err != nil {
		return err
	}
	o.done[e.PromptIndex] = true
	return nil
}

// checkpoint writes checkpoint.json from what is done: replaced whole by
// a rename, so a reader sees the old one or the new one.
func (o *output) checkpoint(now time.Time) error {
	o.mu.Lock()
	idx := make([]int, 0, len(o.done))
	for i := range o.done {
		idx = append(idx, i)
	}
	o.mu.Unlock()
	slices.Sort(idx)
	return writeJSON(filepath.Join(o.dir, CheckpointFile), map[string]any{
		"run_name": o.run, "completed_prompts": idx, "last_updated": now.UTC().Format(time.RFC3339),
	})
}

func (o *output) close() error { return o.f.Close() }

// runInput is what input.json holds: the prompts' count and a digest of
// each line's fields, which the prompt indexes of the output refer to.
type runInput struct {
	Prompts int    `json:"prompts"`
	SHA256  string `json:"sha256"`
}

func digest(lines []Line) runInput {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, l := range lines {
		_ = enc.Encode(l)
	}
	return runInput{Prompts: len(lines), SHA256: hex.EncodeToString(h.Sum(nil))}
}

// checkInput records lines as the run's input, or, when resuming a run
// that has one, makes sure lines are the same prompts: the output knows
// its prompts by their index only.
func checkInput(dir string, lines []Line, resume bool) error {
	want := digest(lines)
	path := filepath.Join(dir, InputFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !resume) {
		return writeJSON(path, want)
	}
	if err != nil {
		return err
	}
	var had runInput
	if err := json.Unmarshal(b, &had); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if had != want {
		return fmt.Errorf("the prompts differ from those the run started with (%d prompts then, %d now; %s records them): resume with the same file, or name another --run", had.Prompts, want.Prompts, path)
	}
	return nil
}

// writeJSON replaces path with v, indented, through a temporary file.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
