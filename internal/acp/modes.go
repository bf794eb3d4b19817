package acp

import (
	"context"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/safety"
)

// The approval modes an editor can pick for a session, by id. Each is one
// of hermes's approvals.mode values; hardline commands and approvals.deny
// patterns are refused in all of them.
const (
	// ModeAsk asks the editor's user before a dangerous command runs
	// (approvals.mode manual).
	ModeAsk = "ask"
	// ModeSmart lets the auxiliary judge model approve or refuse a
	// dangerous command, and asks the user only when it is unsure
	// (approvals.mode smart).
	ModeSmart = "smart"
	// ModeYolo runs dangerous commands without asking (approvals.mode
	// off, or --yolo).
	ModeYolo = "yolo"
)

// sessionMode is one mode as the editor shows it.
type sessionMode struct {
	id, name, description string
	// approval is the approvals.mode the mode runs turns with.
	approval safety.Mode
}

// sessionModes lists the modes in the order the editor offers them.
func sessionModes() []sessionMode {
	return []sessionMode{
		{ModeAsk, "Ask", "Dangerous commands ask you first.", safety.ModeManual},
		{ModeSmart, "Smart", "A reviewer model approves or refuses dangerous commands; you are asked when it is unsure.", safety.ModeSmart},
		{ModeYolo, "Yolo", "Dangerous commands run without asking. Commands hermes never runs stay refused.", safety.ModeOff},
	}
}

// DefaultMode is the mode a new session starts in: yolo with --yolo,
// else the one approvals.mode names (off is yolo).
func DefaultMode(approvals safety.Mode, yolo bool) string {
	switch {
	case yolo || approvals == safety.ModeOff:
		return ModeYolo
	case approvals == safety.ModeSmart:
		return ModeSmart
	}
	return ModeAsk
}

// findMode returns the mode with id, or an error naming id and the modes
// there are.
func findMode(id string) (sessionMode, error) {
	var ids []string
	for _, m := range sessionModes() {
		if m.id == id {
			return m, nil
		}
		ids = append(ids, m.id)
	}
	return sessionMode{}, fmt.Errorf("mode %q is not one of hermes's modes; use one of %s", id, strings.Join(ids, ", "))
}

// asker is how a turn in mode id approves dangerous commands and file
// writes outside workdir: asking the editor through p where the mode asks
// at all.
func asker(id string, p safety.Prompter, workdir string) safety.Asker {
	m, err := findMode(id)
	if err != nil {
		m, _ = findMode(ModeAsk)
	}
	return safety.Asker{Prompter: p, Mode: m.approval, WriteRoot: workdir}
}

// modeState is the modes announced with a session, current being its
// mode.
func modeState(current string) *acpsdk.SessionModeState {
	st := &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(current)}
	for _, m := range sessionModes() {
		d := m.description
		st.AvailableModes = append(st.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(m.id), Name: m.name, Description: &d})
	}
	return st
}

// SetSessionMode switches how the session's next turns approve dangerous
// commands, and tells the editor the mode it is in now. A running turn
// keeps the mode it started with.
func (s *Server) SetSessionMode(_ context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	if err := s.setMode(string(p.SessionId), string(p.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	return acpsdk.SetSessionModeResponse{}, nil
}

// setMode sets the mode of the open session id and announces it.
func (s *Server) setMode(id, mode string) error {
	if _, err := findMode(mode); err != nil {
		return acpsdk.NewInvalidParams(map[string]any{"modeId": mode, "error": err.Error()})
	}
	if err := s.update(id, func(st *state) { st.mode = mode }); err != nil {
		return err
	}
	s.opt.Logger.Info("acp session mode changed", "session_id", id, "mode", mode)
	u := newUpdater(s.conn, id, s.opt.Logger)
	u.send(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{
		CurrentModeId: acpsdk.SessionModeId(mode), SessionUpdate: "current_mode_update",
	}})
	return nil
}

// update changes the state of the open session id with f, or says the
// session is not open on this connection.
func (s *Server) update(id string, f func(*state)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.sessions[id]
	if !ok {
		return notOpen(id)
	}
	f(st)
	return nil
}

// notOpen is the error for a request about a session this connection has
// not opened.
func notOpen(id string) error {
	return acpsdk.NewInvalidParams(map[string]any{
		"sessionId": id, "error": fmt.Sprintf("session %q is not open on this connection; call session/new or session/load first", id),
	})
}
