package app

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

// reloadDebounce lets an editor finish writing (write, rename, chmod)
// before the file is read.
const reloadDebounce = 300 * time.Millisecond

// watchConfig starts watching config.yaml's directory (editors save by
// renaming a new file over the old one), so that no change made after it
// returns is missed; nil when it cannot, which is logged.
func (a *App) watchConfig() *fsnotify.Watcher {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		a.Log.Warn("config.yaml will not be reloaded when it changes", "error", err.Error())
		return nil
	}
	if err := w.Add(filepath.Dir(a.Config.Paths.ConfigFile)); err != nil {
		w.Close()
		a.Log.Warn("config.yaml will not be reloaded when it changes", "error", err.Error())
		return nil
	}
	return w
}

// reloadSchedules re-reads config.yaml (loaded with opts) whenever w sees
// it change and syncs its schedules into the job store, so an edited,
// added or removed job takes effect without restarting hermes serve (the
// scheduler is woken by the change). A config that no longer loads is
// logged and the jobs stay as they were. It closes w and returns when ctx
// ends.
func (a *App) reloadSchedules(ctx context.Context, w *fsnotify.Watcher, opts config.LoadOptions) {
	path, store, log := a.Config.Paths.ConfigFile, a.Jobs, a.Log
	defer w.Close()
	timer := a.opts.Clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) == filepath.Clean(path) {
				timer.Reset(reloadDebounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			log.Warn("watching config.yaml failed", "error", err.Error())
		case <-timer.C():
			resyncSchedules(ctx, opts, store, log)
		}
	}
}

// resyncSchedules loads the configuration again and syncs its schedules.
func resyncSchedules(ctx context.Context, opts config.LoadOptions, store *cron.Store, log *slog.Logger) {
	l, err := config.Load(opts)
	if err != nil {
		log.Error("config.yaml changed but does not load; the jobs stay as they were", "error", err.Error())
		return
	}
	n := notify.New(NotifyConfig(l, log))
	for name, s := range l.Config.Schedules {
		if _, err := n.ParseChain(s.Deliver); err != nil {
			log.Error("config.yaml changed: a job's delivery target is wrong; its results will go to the local file", "job", name, "error", err.Error())
		}
	}
	res, err := store.Sync(ctx, ConfigJobs(l.Config))
	if err != nil {
		log.Error("config.yaml changed but its schedules were not applied; the jobs stay as they were", "error", err.Error())
		return
	}
	if len(res.Added)+len(res.Updated)+len(res.Removed) > 0 {
		log.Info("schedules reloaded from config.yaml", "added", res.Added, "updated", res.Updated, "removed", res.Removed)
	}
}
