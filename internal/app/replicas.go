package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/holder"
	"github.com/hermes-go/hermes/internal/replica"
)

// rollEvery is how often hermes serve reports itself on the roll;
// rollWindow how long after its last report a replica still counts as
// live.
const (
	rollEvery  = 30 * time.Second
	rollWindow = 2 * rollEvery
)

// Holder names this process in leases and on the roll of replicas:
// Options.Holder, else host/pid.
func (a *App) Holder() string {
	if a.opts.Holder != "" {
		return a.opts.Holder
	}
	return holder.This()
}

// ConfigHash is a hash of the files people edit that shape what a
// replica does: config.yaml, SOUL.md, and every file under skills/ and
// tools/, by path and content. Replicas sharing a home through a shared
// volume or a config repository hash alike; one whose files drifted
// does not. .env is left out: secrets may differ by machine on purpose.
func ConfigHash(p config.Paths) (string, error) {
	h := sha256.New()
	add := func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(p.Home, path)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	}
	for _, f := range []string{p.ConfigFile, p.SoulFile} {
		if err := add(f); err != nil {
			return "", fmt.Errorf("config hash: %w", err)
		}
	}
	for _, dir := range []string{p.SkillsDir, filepath.Join(p.Home, "tools")} {
		var files []string
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("config hash: %w", err)
		}
		slices.Sort(files)
		for _, f := range files {
			if err := add(f); err != nil {
				return "", fmt.Errorf("config hash: %w", err)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// StartRoll reports this process on the roll of replicas now and every
// rollEvery until ctx ends or the app closes, when it leaves the roll.
func (a *App) StartRoll(ctx context.Context) {
	roll := replica.New(a.DB, a.opts.Clock)
	host, _ := os.Hostname()
	me := replica.Replica{Holder: a.Holder(), Host: host, PID: os.Getpid(), Version: a.opts.Version, Started: a.opts.Clock.Now()}
	if api := a.Config.Config.API; api.Enabled {
		me.APIURL = api.AdvertisedURL(host)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			// The hash is taken at every beat: an edit picked up by a
			// reload shows without a restart.
			hash, err := ConfigHash(a.Config.Paths)
			if err != nil {
				a.Log.Warn("replica: config hash", "error", err)
			}
			me.ConfigHash = hash
			if err := roll.Beat(ctx, me); err != nil && ctx.Err() == nil {
				a.Log.Warn("replica: heartbeat not recorded", "error", err)
			}
			if a.opts.Clock.Sleep(ctx, rollEvery) != nil {
				return
			}
		}
	}()
	a.onClose(func() {
		cancel()
		<-done
		leave, stop := context.WithTimeout(context.Background(), 2*time.Second)
		defer stop()
		if err := roll.Leave(leave, me.Holder); err != nil {
			a.Log.Debug("replica: leaving the roll", "error", err)
		}
	})
}

// holdersAlive tells, for the holders of held messages, which are
// processes still serving: this one, and those on the roll of replicas
// within rollWindow, less a process of this host known to have ended
// (taken over at once rather than a window later).
func (a *App) holdersAlive(ctx context.Context) (func(holder string) bool, error) {
	live, err := replica.New(a.DB, a.opts.Clock).Live(ctx, rollWindow)
	if err != nil {
		return nil, err
	}
	on := make(map[string]bool, len(live))
	for _, r := range live {
		on[r.Holder] = true
	}
	me := a.Holder()
	return func(h string) bool {
		switch {
		case h == me:
			return true
		case holder.Gone(h):
			return false
		}
		return on[h]
	}, nil
}

// apiPeer finds where the live replica named tag (replica.Tag of its
// holder) serves its API, for the API to pass it a request about a run
// it holds.
func (a *App) apiPeer(ctx context.Context, tag string) (string, error) {
	live, err := replica.New(a.DB, a.opts.Clock).Live(ctx, rollWindow)
	if err != nil {
		return "", err
	}
	for _, r := range live {
		if replica.Tag(r.Holder) == tag && r.APIURL != "" {
			return r.APIURL, nil
		}
	}
	return "", fmt.Errorf("no live replica %s serves the API", tag)
}
