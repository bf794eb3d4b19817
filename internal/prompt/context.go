package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// contextHeader introduces the project context tier. It tells the model
// where the files came from and that the user's word comes first.
const contextHeader = `# Project context
The following instruction files were found in the project you are working in. Follow them where they apply; the user's own requests take precedence.`

// contextTier reads the project context files of o.Workdir and renders
// them, each under a heading with its path relative to the working
// directory. A file that cannot be read is skipped with a warning; one that
// tries to take over the prompt is replaced by its blocked line. Files are
// cut at o.FileCap characters each and o.TotalCap together; once the total
// is spent, later files are named but left out.
func contextTier(o Options) string {
	if o.Workdir == "" {
		return ""
	}
	workdir, err := filepath.Abs(o.Workdir)
	if err != nil {
		o.Logger.Warn("project context skipped: bad working directory", "workdir", o.Workdir, "error", err)
		return ""
	}
	home := o.UserHome
	if home == "" {
		home, _ = os.UserHomeDir() // no home: the walk goes to the filesystem root
	}
	if home != "" {
		home, _ = filepath.Abs(home)
	}

	var sections []string
	budget := o.TotalCap
	for _, path := range findContextFiles(workdir, home) {
		name := relName(workdir, path)
		text, err := readInstructions(path)
		if err != nil {
			o.Logger.Warn("context file skipped", "file", path, "error", err)
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		text, blocked := scanned(fileText{name: name, text: text}, o.Scan, o.Logger)
		if blocked {
			sections = append(sections, text)
			continue
		}
		section, used := fitFile(name, strings.TrimSpace(text), o.FileCap, budget, o.TotalCap)
		budget -= used
		sections = append(sections, section)
	}
	if len(sections) == 0 {
		return ""
	}
	return contextHeader + "\n\n" + strings.Join(sections, "\n\n")
}

// fitFile renders one file's section within the per-file cap and what is
// left of the total, returning the section and the characters of content
// it used.
func fitFile(name, text string, fileCap, budget, totalCap int) (string, int) {
	if budget <= 0 {
		return fmt.Sprintf("[omitted: %s — the project context is limited to %d characters in all]", name, totalCap), 0
	}
	limit, why := fileCap, fmt.Sprintf("a context file is cut at %d characters", fileCap)
	if budget < limit {
		limit, why = budget, fmt.Sprintf("the project context is limited to %d characters in all", totalCap)
	}
	body := capText(text, name, limit, why)
	used := min(utf8.RuneCountInString(text), limit)
	return "## " + name + "\n\n" + body, used
}

// relName is path relative to workdir with forward slashes, as the model
// would write it; "../HERMES.md" for a parent's file.
func relName(workdir, path string) string {
	rel, err := filepath.Rel(workdir, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}
