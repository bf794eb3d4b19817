package config

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
)

// hermes's home is ~/.hermes, as Hermes Agent's is, and both keep their
// state in state.db: the same name, and tables of the same names in
// other shapes. In a home Hermes Agent's state.db is in, hermes keeps its
// own in hermes-state.db beside it and never writes Hermes's file (hermes
// migrate hermes-agent reads it).

// StateAppID is the SQLite application id hermes stamps on its state
// files (internal/sqlitedb's AppID).
const StateAppID = 0x48524d53

// sharedStateFile is hermes's state file in a home shared with Hermes
// Agent.
const sharedStateFile = "hermes-state.db"

// maxSniff bounds how much of an unstamped state.db is read for Hermes
// Agent's schema.
const maxSniff = 8 << 20

// stateFile returns the state file of home: state.db, unless that is
// Hermes Agent's (or another program's), or hermes already keeps its
// state beside it.
func stateFile(home string) string {
	own, shared := filepath.Join(home, "state.db"), filepath.Join(home, sharedStateFile)
	if _, err := os.Stat(shared); err == nil {
		return shared
	}
	if foreignState(own) {
		return shared
	}
	return own
}

// foreignState reports whether path is a SQLite file that is not
// hermes's: stamped with another application id, or unstamped with Hermes
// Agent's sessions table in its first pages (its schema text names
// origin_json). A missing or unreadable file is not foreign: opening it
// says what is wrong.
func foreignState(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [100]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || !bytes.HasPrefix(hdr[:], []byte("SQLite format 3\x00")) {
		return false
	}
	switch binary.BigEndian.Uint32(hdr[68:72]) {
	case StateAppID:
		return false
	case 0:
		data, err := io.ReadAll(io.LimitReader(f, maxSniff))
		return err == nil && bytes.Contains(data, []byte("origin_json"))
	default:
		return true
	}
}
