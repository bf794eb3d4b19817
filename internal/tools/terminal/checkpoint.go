package terminal

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/subdir"
	"github.com/hermes-go/hermes/internal/tool"
)

// maxKeptPerCommand bounds the files one command's checkpoint walks: an
// rm -rf of a dependency folder is not worth reading every file of.
const maxKeptPerCommand = 2000

// keepWrites hands the checkpoint (the invocation's BeforeWrite) every
// local file under the session's working directory that command, about
// to run in dir by a shell holding st, is judged to change: what the
// turn's /rollback restores. Commands on another host (the ssh backend)
// change no local file, and a command hermes cannot read is run all the
// same: a checkpoint keeps what it can, it does not gate commands.
func (t *Terminal) keepWrites(inv tool.Invocation, dir string, st *shell.State, command string) error {
	if inv.BeforeWrite == nil || t.opt.Backend != nil || inv.Workdir == "" {
		return nil
	}
	o := shell.Options{Dir: dir}
	if st != nil {
		o.State = *st
	}
	home, _ := os.UserHomeDir()
	writes, _ := o.Writes(command)
	kept := 0
	for _, w := range writes {
		for _, p := range localPaths(w, home) {
			if !subdir.Within(inv.Workdir, p) {
				continue
			}
			if err := keepTree(p, inv.BeforeWrite, &kept); err != nil {
				return &tool.Error{Code: tool.CodeInternal, Message: "the command did not run: " + err.Error()}
			}
		}
	}
	return nil
}

// localPaths are the files on disk w may name: its path as it is, under
// the home, or under each directory it may be relative to, found by
// name without regard to case (the analysis reads lower case).
func localPaths(w shell.Write, home string) []string {
	p := w.Path
	switch {
	case filepath.IsAbs(p):
		return []string{filepath.Clean(p)}
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return nil
		}
		return []string{filepath.Join(home, strings.TrimPrefix(p, "~"))}
	}
	var out []string
	for _, d := range w.Dirs {
		if strings.HasPrefix(d, "~") {
			if home == "" {
				continue
			}
			d = home + strings.TrimPrefix(d, "~")
		}
		if real, ok := findFold(d); ok {
			out = append(out, filepath.Join(real, p))
		}
	}
	return out
}

// findFold finds the directory whose path, lower-cased, is dir.
func findFold(dir string) (string, bool) {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, true
	}
	real := string(filepath.Separator)
	for _, part := range strings.Split(strings.Trim(filepath.Clean(dir), string(filepath.Separator)), string(filepath.Separator)) {
		entries, err := os.ReadDir(real)
		if err != nil {
			return "", false
		}
		found := ""
		for _, e := range entries {
			if strings.ToLower(e.Name()) == part {
				found = e.Name()
				break
			}
		}
		if found == "" {
			return "", false
		}
		real = filepath.Join(real, found)
	}
	return real, true
}

// keepTree keeps p, and every regular file below it when it is a
// directory (not following links), up to maxKeptPerCommand files. A path
// whose directory does not exist names no file the command could
// create (sed's script, counted among its operands) and is passed over.
func keepTree(p string, keep func(string) error, kept *int) error {
	if *kept >= maxKeptPerCommand {
		return nil
	}
	fi, err := os.Lstat(p)
	if err != nil {
		if _, perr := os.Stat(filepath.Dir(p)); perr != nil {
			return nil
		}
		*kept++
		return keep(p) // a file the command creates: undoing removes it
	}
	if !fi.IsDir() {
		*kept++
		return keep(p)
	}
	return filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if *kept >= maxKeptPerCommand {
			return filepath.SkipAll
		}
		*kept++
		return keep(q)
	})
}
