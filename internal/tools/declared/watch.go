package declared

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// debounce is how long the watcher waits after a change before
// reloading: editors write a file in several steps (truncate, write,
// rename), and one reload should see the result.
const debounce = 200 * time.Millisecond

// Watch keeps the registry in step with the files until ctx ends. It
// watches the tools directory, its parent (so the directory may be
// created later) and config.yaml's directory (editors replace files by
// renaming), and reloads about 200 ms after the last change. A file that
// no longer parses keeps its previous tools registered and is listed in
// Problems until fixed; a deleted file's tools are removed. Watch returns
// nil when ctx ends, or an error when watching cannot start.
func (l *Loader) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch the tools files: %w", err)
	}
	defer w.Close()
	dir := filepath.Clean(l.opts.Dir)
	config := ""
	if l.opts.ConfigFile != "" {
		config = filepath.Clean(l.opts.ConfigFile)
	}
	watched := map[string]bool{}
	add := func(d string) {
		if d == "" || d == "." || watched[d] {
			return
		}
		if err := w.Add(d); err == nil {
			watched[d] = true
		}
	}
	if l.opts.Dir != "" {
		add(dir)
		add(filepath.Dir(dir))
	}
	if config != "" {
		add(filepath.Dir(config))
	}
	if len(watched) == 0 {
		return errors.New("watch the tools files: neither the tools directory nor config.yaml's directory exists")
	}
	// Changes made between Load and now are picked up here.
	l.reloadLogged()

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			name := filepath.Clean(ev.Name)
			switch {
			case l.opts.Dir != "" && name == dir:
				if ev.Has(fsnotify.Create) {
					if st, err := os.Stat(dir); err == nil && st.IsDir() {
						watched[dir] = false
						add(dir)
					}
				}
			case l.opts.Dir != "" && filepath.Dir(name) == dir && isToolsFile(name):
			case config != "" && name == config:
			default:
				continue
			}
			timer.Reset(debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			l.warn("watching the tools files failed", slog.Any("error", err))
		case <-timer.C:
			l.reloadLogged()
		}
	}
}

// reloadLogged reloads and logs an error that stopped it.
func (l *Loader) reloadLogged() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.reload(); err != nil {
		l.warn("reloading the tools files failed", slog.Any("error", err))
	}
}
