package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/atomicfile"
)

// ConsentFile is the name of the file under HERMES_HOME that remembers the
// hooks a person allowed.
const ConsentFile = "hooks-allowlist.json"

// Consents remembers which hooks were allowed to run, in a file of mode
// 0600 that a person can read and edit: deleting an entry (or the file)
// takes the consent back. A consent is for one event and one exact
// command, so a hook whose command is edited is asked about again. The
// file is read at every check, so a consent given in a terminal reaches a
// gateway that is already running. A nil *Consents allows nothing.
type Consents struct {
	path string
	now  func() time.Time
	mu   sync.Mutex
}

// NewConsents returns the consents kept in path; now stamps new ones (nil
// is the wall clock).
func NewConsents(path string, now func() time.Time) *Consents {
	if now == nil {
		now = time.Now
	}
	return &Consents{path: path, now: now}
}

// Consent is one remembered permission.
type Consent struct {
	Event   Event     `json:"event"`
	Command []string  `json:"command"`
	Granted time.Time `json:"granted_at"`
	// Key is Key(hook), a digest of event and command, so an entry
	// edited by hand to a different command no longer matches it.
	Key string `json:"key"`
}

type consentFile struct {
	Hooks []Consent `json:"hooks"`
}

// Key identifies a hook for consent: its event and its exact argv.
func Key(h Hook) string {
	sum := sha256.New()
	sum.Write([]byte(h.Event))
	for _, a := range h.Command {
		sum.Write([]byte{0})
		sum.Write([]byte(a))
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// Granted reports whether h was allowed.
func (c *Consents) Granted(h Hook) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := c.read()
	if err != nil {
		return false
	}
	key := Key(h)
	for _, e := range f.Hooks {
		if e.Key == key && e.Event == h.Event && slices.Equal(e.Command, h.Command) {
			return true
		}
	}
	return false
}

// Grant remembers that h may run.
func (c *Consents) Grant(h Hook) error {
	if c == nil {
		return errors.New("hooks: nowhere to remember consents")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := c.read()
	if err != nil {
		return err
	}
	key := Key(h)
	f.Hooks = slices.DeleteFunc(f.Hooks, func(e Consent) bool { return e.Key == key })
	f.Hooks = append(f.Hooks, Consent{Event: h.Event, Command: h.Command, Granted: c.now().UTC(), Key: key})
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteNew(c.path, append(b, '\n'), true); err != nil {
		return fmt.Errorf("hooks: remembering consent: %w", err)
	}
	return nil
}

// read loads the file; a missing file holds no consents. A file that
// others can write is not trusted: whoever can write it could allow any
// command.
func (c *Consents) read() (consentFile, error) {
	var f consentFile
	st, err := os.Stat(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if st.Mode().Perm()&0o022 != 0 {
		return f, fmt.Errorf("hooks: %s can be written by others (mode %v); it is ignored until it is 0600", c.path, st.Mode().Perm())
	}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("hooks: %s: %w", c.path, err)
	}
	return f, nil
}
