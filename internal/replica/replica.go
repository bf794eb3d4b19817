// Package replica keeps the roll of hermes serve processes sharing one
// state (several replicas on one PostgreSQL database, or a gateway and a
// scheduler on one state.db): who each is, which release and which
// configuration it runs, and when it was last seen. The files people
// edit (config.yaml, SOUL.md, skills, declared tools) are not in the
// database; replicas share them through a shared volume or a config
// repository, and the roll is how `hermes doctor` notices when they have
// drifted apart: each replica reports a hash of what it loaded.
package replica

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// Replica is one serving process as it last reported itself.
type Replica struct {
	// Holder names the process, host/pid, as leases do.
	Holder string
	Host   string
	PID    int
	// Version is the hermes release.
	Version string
	// ConfigHash is the hash of the files people edit, as loaded.
	ConfigHash string
	// APIURL is where the other replicas reach this one's API, to pass
	// on a request about a run it holds; empty without the API.
	APIURL  string
	Started time.Time
	Seen    time.Time
}

// Roll is the roll of replicas in one database.
type Roll struct {
	db  sqldb.DB
	now func() time.Time
}

// New returns the roll over db.
func New(db sqldb.DB, c clock.Clock) *Roll {
	return &Roll{db: db, now: clock.OrReal(c).Now}
}

// Beat records that r is alive now, with what it runs.
func (l *Roll) Beat(ctx context.Context, r Replica) error {
	now := l.now().UnixMicro()
	started := r.Started.UnixMicro()
	if r.Started.IsZero() {
		started = now
	}
	return l.db.WriteTx(ctx, "replica heartbeat", func(tx *sql.Tx) error {
		// A replica killed without leaving stays listed only as long as
		// it could still be alive; rows older than a day go.
		if _, err := tx.ExecContext(ctx, `DELETE FROM replicas WHERE seen_at < ?`, now-(24*time.Hour).Microseconds()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO replicas (holder, host, pid, version, config_hash, api_url, started_at, seen_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (holder) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
	config_hash = excluded.config_hash, api_url = excluded.api_url, started_at = excluded.started_at, seen_at = excluded.seen_at`,
			r.Holder, r.Host, r.PID, r.Version, r.ConfigHash, r.APIURL, started, now)
		return err
	})
}

// Leave takes holder off the roll, when it stops cleanly.
func (l *Roll) Leave(ctx context.Context, holder string) error {
	return l.db.WriteTx(ctx, "replica leaves", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM replicas WHERE holder = ?`, holder)
		return err
	})
}

// Live lists the replicas seen within the last window, by holder.
func (l *Roll) Live(ctx context.Context, window time.Duration) ([]Replica, error) {
	now := l.now()
	rows, err := l.db.Reader().QueryContext(ctx, `SELECT holder, host, pid, version, config_hash, api_url, started_at, seen_at
FROM replicas WHERE seen_at >= ? ORDER BY holder`, now.Add(-window).UnixMicro())
	if err != nil {
		return nil, fmt.Errorf("list replicas: %w", err)
	}
	defer rows.Close()
	var out []Replica
	for rows.Next() {
		var r Replica
		var started, seen int64
		if err := rows.Scan(&r.Holder, &r.Host, &r.PID, &r.Version, &r.ConfigHash, &r.APIURL, &started, &seen); err != nil {
			return nil, fmt.Errorf("list replicas: %w", err)
		}
		r.Started, r.Seen = time.UnixMicro(started).UTC(), time.UnixMicro(seen).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// Tag is a short name for holder, the same in every replica: the API
// puts it in the ids of a replica's runs, so that any replica can tell
// which one holds a run (eight hex digits of a SHA-256 of holder).
func Tag(holder string) string {
	sum := sha256.Sum256([]byte(holder))
	return hex.EncodeToString(sum[:4])
}

// Disagree groups live replicas by the configuration hash they run;
// more than one group means the replicas have drifted apart.
func Disagree(rs []Replica) map[string][]string {
	by := map[string][]string{}
	for _, r := range rs {
		by[r.ConfigHash] = append(by[r.ConfigHash], r.Holder)
	}
	return by
}
