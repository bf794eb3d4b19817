package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/api/ui"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/session"
)

// apiUI is the dashboard the API's listener serves at /ui: the stores
// hermes sessions and hermes cron read, the engine's run-now (as hermes
// cron run), the sessions' leases for the turns running in any process,
// the gateway's undelivered replies, and hermes gateway status, with
// every text redacted on its way out. api.sessions decides which
// sessions it shows, as it does for /v1/sessions.
//
// With users configured it needs an owner's key: it shows every user's
// sessions and costs, so the loopback listener's open door (no keys)
// would hand them to any user who can reach it. Without one it is not
// served.
func (a *App) apiUI(keys []string) http.Handler {
	if len(keys) == 0 && a.Users.Enabled() {
		return nil
	}
	source := apiSource
	if a.Config.Config.API.Sessions == config.APISessionsAll {
		source = ""
	}
	opt := ui.Options{
		Keys:     keys,
		Source:   source,
		Sessions: a.Sessions,
		Jobs:     a.Jobs,
		RunJob:   a.Engine.StartJobNow,
		Live: func(ctx context.Context) ([]ui.Live, error) {
			rs, err := a.Sessions.Running(ctx, a.opts.Clock.Now())
			out := make([]ui.Live, len(rs))
			for i, r := range rs {
				out[i] = ui.Live{SessionID: r.SessionID, Holder: r.Holder}
			}
			return out, err
		},
		Costs: func(ctx context.Context, since time.Time) ([]ui.Cost, error) {
			rows, err := a.Sessions.DailyUsage(ctx, session.UsageQuery{From: since.UTC().Format(time.DateOnly)})
			out := make([]ui.Cost, 0, len(rows))
			for _, r := range rows {
				day, perr := time.Parse(time.DateOnly, r.Day)
				if perr != nil {
					continue
				}
				out = append(out, ui.Cost{Day: day, User: r.User, Tenant: r.Tenant, Model: r.Model, CostUSD: r.CostUSD, Tokens: r.InputTokens + r.OutputTokens})
			}
			return out, err
		},
		Failures: func(_ context.Context, limit int) ([]ui.Failure, error) {
			return readUndelivered(filepath.Join(a.Config.Paths.Home, "gateway", "undelivered.jsonl"), limit)
		},
		Redact: newLiveRedactor(a).Redact,
		Clock:  a.opts.Clock,
		Logger: a.Log,
	}
	if GatewayConfigured(a.Config.Config) {
		opt.Platforms = func(ctx context.Context) ([]ui.Platform, error) {
			ps, err := a.GatewayStatus(ctx)
			out := make([]ui.Platform, len(ps))
			for i, p := range ps {
				out[i] = ui.Platform{Name: p.Platform, OK: p.OK, Detail: p.Detail}
			}
			return out, err
		}
	}
	return ui.New(opt)
}

// undeliveredTail is how much of the end of undelivered.jsonl the
// dashboard reads: the newest replies, however large the file grew.
const undeliveredTail = 256 << 10

// readUndelivered reads the newest replies the gateway could not send
// (undeliveredFile writes them), newest first, at most limit.
func readUndelivered(path string, limit int) ([]ui.Failure, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(st.Size()-undeliveredTail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, from, st.Size()-from))
	if err != nil {
		return nil, err
	}
	if from > 0 {
		// The first line is cut: it starts before the tail.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var out []ui.Failure
	sc := bufio.NewScanner(bytes.NewReader(buf))
	sc.Buffer(make([]byte, 0, 64<<10), undeliveredTail)
	for sc.Scan() {
		var u struct {
			Time      time.Time `json:"time"`
			SessionID string    `json:"session_id"`
			Chat      string    `json:"chat"`
			Thread    string    `json:"thread"`
			Text      string    `json:"text"`
			Error     string    `json:"error"`
			Attempts  int       `json:"attempts"`
		}
		if json.Unmarshal(sc.Bytes(), &u) != nil {
			continue
		}
		where := "chat " + u.Chat
		if u.Thread != "" {
			where += " thread " + u.Thread
		}
		out = append(out, ui.Failure{Time: u.Time, Where: where, Text: u.Text, Error: u.Error, Attempts: u.Attempts})
	}
	slices.Reverse(out)
	return out[:min(len(out), limit)], sc.Err()
}
