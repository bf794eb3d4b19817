package curator

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is what a run did, or in a dry run would do.
type Report struct {
	At     time.Time `json:"at"`
	DryRun bool      `json:"dry_run"`
	// Stale are the skills marked stale now; StillStale counts those
	// marked before and still unused.
	Stale      []Item `json:"stale"`
	StillStale int    `json:"still_stale"`
	// Reactivated are stale skills no longer unused long enough.
	Reactivated []string `json:"reactivated,omitempty"`
	// Archived are the skills moved to skills/.archive.
	Archived []Item `json:"archived"`
	// Merges are the merges applied; Rejected those of the model's that
	// failed a check, or its whole answer.
	Merges   []Merged   `json:"merges"`
	Rejected []Rejected `json:"rejected,omitempty"`
	// Consolidation says whether the model was asked, and why not.
	Consolidation string `json:"consolidation"`
	// Expired are the archived skills deleted past archive_ttl_days.
	Expired []Item `json:"expired,omitempty"`
	// Protected are curated skills left alone, with why.
	Protected []Item `json:"protected,omitempty"`
	// LeftAlone counts the skills the curator does not touch.
	LeftAlone struct {
		Bundled int `json:"bundled"`
		User    int `json:"user"`
	} `json:"left_alone"`
	// Errors are the changes that failed; the rest were made.
	Errors []string `json:"errors,omitempty"`
}

// Item is one skill in the report.
type Item struct {
	Name string        `json:"name"`
	Idle time.Duration `json:"idle_ns,omitempty"`
	Why  string        `json:"why,omitempty"`
}

// Merged is one merge: the skills it replaces and the skill it makes.
type Merged struct {
	// ID is the merge's record (empty in a dry run).
	ID          string   `json:"id,omitempty"`
	Sources     []string `json:"sources"`
	Name        string   `json:"name"`
	Category    string   `json:"category,omitempty"`
	Description string   `json:"description"`
	Content     string   `json:"content"`
}

// Rejected is a merge of the model's, or its whole answer, that was not
// applied.
type Rejected struct {
	Sources []string `json:"sources,omitempty"`
	Name    string   `json:"name,omitempty"`
	Why     string   `json:"why"`
}

// Changed reports whether the run changed (or would change) anything.
func (r *Report) Changed() bool {
	return len(r.Stale)+len(r.Reactivated)+len(r.Archived)+len(r.Merges)+len(r.Expired) > 0
}

// Summary is the run in one line, for logs and the schedule's state.
func (r *Report) Summary() string {
	s := fmt.Sprintf("%d marked stale, %d archived, %d merged", len(r.Stale), len(r.Archived), len(r.Merges))
	if n := len(r.Rejected); n > 0 {
		s += fmt.Sprintf(", %d merge(s) refused", n)
	}
	if n := len(r.Expired); n > 0 {
		s += fmt.Sprintf(", %d deleted from the archive", n)
	}
	if n := len(r.Errors); n > 0 {
		s += fmt.Sprintf(", %d error(s)", n)
	}
	return s
}

// WriteText renders the report for a person; showContent adds each
// merged skill's SKILL.md.
func (r *Report) WriteText(w io.Writer, showContent bool) {
	verb := func(done, would string) string {
		if r.DryRun {
			return would
		}
		return done
	}
	if r.DryRun {
		fmt.Fprintln(w, "Dry run: nothing was changed. This is what hermes skills curate would do.")
	}
	list := func(title string, items []Item) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, it := range items {
			fmt.Fprintf(w, "  %-32s %s\n", it.Name, it.Why)
		}
	}
	list(verb("Marked stale", "Would mark stale")+" (still usable; using one clears the mark)", r.Stale)
	list(verb("Archived", "Would archive")+" (moved to skills/.archive; hermes skills restore NAME brings one back)", r.Archived)
	if len(r.Reactivated) > 0 {
		fmt.Fprintf(w, "\n%s: %s\n", verb("No longer stale", "Would clear the stale mark of"), strings.Join(r.Reactivated, ", "))
	}
	fmt.Fprintf(w, "\nConsolidation: %s\n", r.Consolidation)
	for _, m := range r.Merges {
		cat := ""
		if m.Category != "" {
			cat = " (" + m.Category + ")"
		}
		fmt.Fprintf(w, "  %s %s -> %s%s: %s\n", verb("merged", "would merge"), strings.Join(m.Sources, " + "), m.Name, cat, clip(oneLine(m.Description), 100))
		if !r.DryRun {
			fmt.Fprintf(w, "    the originals are in skills/.archive; hermes skills restore %s undoes the merge\n", m.Name)
		}
		if showContent {
			for line := range strings.Lines(strings.TrimRight(m.Content, "\n") + "\n") {
				fmt.Fprintf(w, "    | %s", line)
			}
		}
	}
	for _, rj := range r.Rejected {
		what := "the answer"
		if len(rj.Sources) > 0 || rj.Name != "" {
			what = fmt.Sprintf("%s -> %q", strings.Join(rj.Sources, " + "), rj.Name)
		}
		fmt.Fprintf(w, "  refused %s: %s\n", what, rj.Why)
	}
	list(verb("Deleted from the archive", "Would delete from the archive")+" (archive_ttl_days)", r.Expired)
	list("Protected", r.Protected)
	fmt.Fprintf(w, "\nLeft alone: %d bundled skill(s), %d installed or hand-written skill(s)", r.LeftAlone.Bundled, r.LeftAlone.User)
	if r.StillStale > 0 {
		fmt.Fprintf(w, "; %d skill(s) stay stale", r.StillStale)
	}
	fmt.Fprintln(w)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
}
