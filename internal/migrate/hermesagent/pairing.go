package hermesagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Granter is what the import needs of the gateway's pairings.
type Granter interface {
	Grant(ctx context.Context, platform, user string, at time.Time) (bool, error)
}

// PairingReport is what an import of pairing approvals did.
type PairingReport struct {
	Imported, Present int
}

// pairingDirs are where Hermes keeps pairing files: platforms/pairing
// since it moved them, pairing/ before.
func pairingDirs(home string) []string {
	return []string{filepath.Join(home, "platforms", "pairing"), filepath.Join(home, "pairing")}
}

// ImportPairings imports the users the owner approved on each platform in
// the Hermes home at home (its <platform>-approved.json files: user id to
// {user_name, approved_at}) as paired users of hermes's gateway, keeping
// the time they were approved. Pending codes are not imported: a code
// belongs to the agent that issued it. With dryRun nothing is written.
func ImportPairings(ctx context.Context, g Granter, home string, dryRun bool) (PairingReport, error) {
	var rep PairingReport
	seen := map[string]bool{}
	for _, dir := range pairingDirs(home) {
		files, _ := filepath.Glob(filepath.Join(dir, "*-approved.json"))
		sort.Strings(files)
		for _, f := range files {
			platform := strings.TrimSuffix(filepath.Base(f), "-approved.json")
			data, err := os.ReadFile(f)
			if err != nil {
				return rep, err
			}
			var approved map[string]struct {
				At float64 `json:"approved_at"`
			}
			if err := json.Unmarshal(data, &approved); err != nil {
				return rep, fmt.Errorf("%s: %w", f, err)
			}
			users := make([]string, 0, len(approved))
			for u := range approved {
				users = append(users, u)
			}
			sort.Strings(users)
			for _, u := range users {
				if seen[platform+"\x00"+u] {
					continue
				}
				seen[platform+"\x00"+u] = true
				if dryRun {
					rep.Imported++
					continue
				}
				at := epoch(approved[u].At)
				if at.IsZero() {
					at = time.Now()
				}
				added, err := g.Grant(ctx, platform, u, at)
				if err != nil {
					return rep, err
				}
				if added {
					rep.Imported++
				} else {
					rep.Present++
				}
			}
		}
	}
	return rep, nil
}
