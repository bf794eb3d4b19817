package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/checkpoint"
)

// rollback answers /rollback: with no argument, this session's
// checkpoints, newest first and numbered; with n, what undoing turn n's
// file changes would do, diff included; with "n confirm", it done. Files
// changed since the turn, or outside its working directory, are left, and
// the command that restores them named (hermes checkpoints restore).
func (s *replState) rollback(args string) {
	out := s.out
	st := s.h.CheckpointStore()
	all, err := st.List()
	if err != nil {
		fmt.Fprintf(out, "/rollback: %v\n", err)
		return
	}
	var mine []checkpoint.Checkpoint
	for _, cp := range all {
		if s.id != "" && cp.Session == s.id {
			mine = append(mine, cp)
		}
	}
	fields := strings.Fields(args)
	if len(fields) == 0 {
		if len(mine) == 0 {
			fmt.Fprintln(out, "/rollback: no file changes of this session are kept (checkpoints.enabled: true in config.yaml keeps them)")
			return
		}
		for i, cp := range mine {
			names := make([]string, 0, len(cp.Files))
			for _, f := range cp.Files {
				names = append(names, f.Path)
			}
			fmt.Fprintf(out, "%d  %s  %s\n", i+1, cp.Created.Local().Format("15:04:05"), strings.Join(names, ", "))
		}
		fmt.Fprintln(out, "/rollback N shows what undoing turn N's file changes does.")
		return
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n < 1 || n > len(mine) {
		fmt.Fprintf(out, "/rollback: %q is not one of this session's %d checkpoints; /rollback lists them\n", fields[0], len(mine))
		return
	}
	cp := mine[n-1]
	confirmed := len(fields) > 1 && fields[1] == "confirm"
	changes, err := st.Restore(cp.ID, checkpoint.RestoreOptions{DryRun: !confirmed})
	showChanges(out, changes)
	if err != nil {
		fmt.Fprintf(out, "/rollback: %v\n", err)
		return
	}
	left := 0
	for _, c := range changes {
		if c.Action == checkpoint.ChangedSince || c.Action == checkpoint.Outside {
			left++
		}
	}
	switch {
	case !confirmed:
		fmt.Fprintf(out, "/rollback %d confirm restores these files.\n", n)
	default:
		fmt.Fprintln(out, "Restored.")
	}
	if left > 0 {
		fmt.Fprintf(out, "%d files are left as they are; hermes checkpoints restore %s --force --outside restores them too.\n", left, cp.ID)
	}
}
