package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/slash"
)

// replState is what the terminal chat's commands change: the session the
// next message goes to, the model and approval mode chosen for this chat,
// and the numbered lists /model and /resume last showed, so a number
// picks from them.
type replState struct {
	cmd  *cobra.Command
	a    *cli
	h    *app.App
	f    *chatFlags
	base context.Context
	out  io.Writer

	id       string
	model    string
	models   []string
	sessions []string
	// lastSent is the last message this chat sent, for /retry; pending,
	// when set, is the message to send next, which a command (/retry)
	// asks for.
	lastSent string
	pending  string
}

// command runs a slash command other than a skill. It reports whether the
// chat should end, and whether c was one of hermes's commands (false for a
// skill, which becomes a message). A command that leaves s.pending set
// (/retry) asks for that message to be sent next.
func (s *replState) command(c slash.Command, args string) (quit, handled bool) {
	out := s.out
	switch c.Name {
	case "exit":
		return true, true
	case "new":
		endSession(s.cmd, s.h, s.id, "new_session")
		s.id = ""
		fmt.Fprintln(out, "(a new session starts with your next message)")
	case "help":
		fmt.Fprintln(out, s.h.Slash().Help(slash.CLI)+"\n\nAnything else is sent to hermes.")
	case "skills":
		printSkills(out, s.h.Slash())
	case "reload-mcp":
		reloadMCP(s.cmd, s.a, s.h, s.base)
	case "usage":
		printUsage(s.base, out, s.h, s.id)
	case "compress":
		if next := compressNow(s.base, out, s.h, s.id, args); next != "" {
			s.id = next
		}
	case "model":
		s.chooseModel(args)
	case "resume":
		s.resume(args)
	case "title":
		s.title(args)
	case "tools":
		s.tools()
	case "memory":
		s.memory()
	case "yolo":
		s.f.yolo = !s.f.yolo
		if s.f.yolo {
			fmt.Fprintln(out, "yolo: dangerous commands run without asking in this chat (hardline commands and approvals.deny still never run); /yolo again to ask again")
		} else {
			fmt.Fprintln(out, "yolo off: dangerous commands are asked about again")
		}
	case "export":
		s.export(args)
	case "undo":
		s.undo("undo")
	case "retry":
		s.retry()
	case "rollback":
		s.rollback(args)
	case "logs":
		s.logs(args)
	default:
		return false, false
	}
	return false, true
}

// pick resolves "3" against list (1-based) or takes arg as a name.
func pick(arg string, list []string) (string, error) {
	n, err := strconv.Atoi(arg)
	if err != nil {
		return arg, nil
	}
	if n < 1 || n > len(list) {
		return "", fmt.Errorf("%d is not in the list (1-%d); run the command without an argument to see it", n, len(list))
	}
	return list[n-1], nil
}

// chooseModel answers /model: the models to pick from, numbered, or a
// switch of this chat's turns to the one named or numbered.
func (s *replState) chooseModel(arg string) {
	out := s.out
	main, _ := s.h.Models.Main()
	current := main.Model
	if s.model != "" {
		current = s.model
	}
	if arg == "" {
		list, err := s.h.ListModels(s.base)
		fmt.Fprintf(out, "model: %s via %s\n", current, main.Provider)
		if err != nil {
			fmt.Fprintf(out, "(the provider's model list could not be read: %v)\n", err)
		}
		if len(list) > 40 {
			list = list[:40]
		}
		s.models = list
		for i, m := range list {
			mark := " "
			if m == current {
				mark = "*"
			}
			fmt.Fprintf(out, " %s %2d. %s\n", mark, i+1, m)
		}
		if len(list) > 0 {
			fmt.Fprintln(out, "/model NUMBER or /model NAME switches this chat's next turns")
		}
		return
	}
	name, err := pick(arg, s.models)
	if err == nil {
		_, err = s.h.Models.Model(name)
	}
	if err != nil {
		fmt.Fprintln(out, "/model:", err)
		return
	}
	s.model = name
	if name == main.Model {
		s.model = ""
	}
	fmt.Fprintf(out, "model: %s for this chat's next turns\n", name)
}

// resume answers /resume: the recent sessions, numbered, or a switch to
// the one numbered or named.
func (s *replState) resume(arg string) {
	out := s.out
	if arg == "" {
		list, err := s.h.Sessions.List(s.base, session.ListOptions{Limit: 15})
		if err != nil {
			fmt.Fprintln(out, "/resume:", err)
			return
		}
		s.sessions = s.sessions[:0]
		for i, ss := range list {
			s.sessions = append(s.sessions, ss.ID)
			mark := " "
			if ss.ID == s.id {
				mark = "*"
			}
			fmt.Fprintf(out, " %s %2d. %s  %s  %-8s %s\n", mark, i+1, localTime(ss.StartedAt), ss.ID, ss.Source, oneLine(cmp.Or(ss.Title, "(untitled)"), 50))
		}
		if len(list) == 0 {
			fmt.Fprintln(out, "no sessions yet")
			return
		}
		fmt.Fprintln(out, "/resume NUMBER or /resume ID continues one")
		return
	}
	id, err := pick(arg, s.sessions)
	if err != nil {
		fmt.Fprintln(out, "/resume:", err)
		return
	}
	got, err := s.h.Sessions.Get(s.base, id)
	if err != nil {
		fmt.Fprintf(out, "/resume: session %q does not exist; /resume lists them\n", id)
		return
	}
	if got.ID != s.id {
		endSession(s.cmd, s.h, s.id, "resumed_other")
	}
	s.id = got.ID
	fmt.Fprintf(out, "continuing session %s %q (%d messages)\n", got.ID, got.Title, got.MessageCount)
}

// title answers /title: the session's title, or a new one.
func (s *replState) title(arg string) {
	if s.id == "" {
		fmt.Fprintln(s.out, "/title: the session starts with your first message; title it after that")
		return
	}
	if arg == "" {
		got, err := s.h.Sessions.Get(s.base, s.id)
		if err == nil {
			fmt.Fprintf(s.out, "title: %s\n", cmp.Or(got.Title, "(untitled)"))
		}
		return
	}
	if err := s.h.Sessions.SetTitle(s.base, s.id, oneLine(arg, 100)); err != nil {
		fmt.Fprintln(s.out, "/title:", err)
		return
	}
	fmt.Fprintln(s.out, "title set")
}

// tools answers /tools: the tools this chat's turns are offered, by
// toolset.
func (s *replState) tools() {
	box, err := s.h.Engine.Toolbox(nil)
	if err != nil {
		fmt.Fprintln(s.out, "/tools:", err)
		return
	}
	byset := map[string][]string{}
	for _, spec := range box.Specs() {
		set := "other"
		if t, ok := box.Registry.Get(spec.Name); ok {
			set = t.Spec().Toolset
		}
		byset[set] = append(byset[set], spec.Name)
	}
	sets := make([]string, 0, len(byset))
	for set := range byset {
		sets = append(sets, set)
	}
	slices.Sort(sets)
	for _, set := range sets {
		fmt.Fprintf(s.out, "  %-12s %s\n", set, strings.Join(byset[set], ", "))
	}
}

// memory answers /memory: MEMORY.md and USER.md as the next session's
// prompt will show them.
func (s *replState) memory() {
	m := s.h.Tools.Memory
	if m == nil {
		fmt.Fprintln(s.out, "memory is off")
		return
	}
	snap, err := m.Snapshot()
	if err != nil {
		fmt.Fprintln(s.out, "/memory:", err)
		return
	}
	show := func(title string, entries []string, path string) {
		fmt.Fprintf(s.out, "%s (%s)\n", title, path)
		if len(entries) == 0 {
			fmt.Fprintln(s.out, "  (empty)")
		}
		for _, e := range entries {
			fmt.Fprintf(s.out, "  • %s\n", strings.ReplaceAll(e, "\n", "\n    "))
		}
	}
	show("MEMORY", snap.Memory, m.Path(memory.TargetMemory))
	show("USER", snap.User, m.Path(memory.TargetUser))
}

// export answers /export [file]: the session as Markdown, to file or to
// SESSION_ID.md in the working directory.
func (s *replState) export(arg string) {
	if s.id == "" {
		fmt.Fprintln(s.out, "/export: nothing to export yet")
		return
	}
	got, err := s.h.Sessions.Get(s.base, s.id)
	if err != nil {
		fmt.Fprintln(s.out, "/export:", err)
		return
	}
	msgs, err := s.h.Sessions.Messages(s.base, s.id)
	if err != nil {
		fmt.Fprintln(s.out, "/export:", err)
		return
	}
	path := cmp.Or(arg, got.ID+".md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		fmt.Fprintf(s.out, "/export: %v (an existing file is not overwritten; name another)\n", err)
		return
	}
	err = session.WriteMarkdown(f, got, msgs)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		fmt.Fprintln(s.out, "/export:", err)
		return
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(s.out, "exported %d messages to %s\n", len(msgs), abs)
}
