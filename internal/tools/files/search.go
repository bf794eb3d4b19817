package files

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/gitignore"
	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed search.md
var searchDescription string

// maxCounted bounds how many results past the shown ones a search keeps
// counting, so a broad pattern over a huge tree still answers in time.
const maxCounted = 10_000

// maxSearchLine cuts long lines in search results; read_file shows them
// in full.
const maxSearchLine = 500

// maxIgnoreBytes is the largest .gitignore read through an FS.
const maxIgnoreBytes = 1 << 20

// SearchFiles is the search_files tool.
type SearchFiles struct{ o Options }

type searchArgs struct {
	Pattern  string `json:"pattern"`
	Target   string `json:"target"`
	Path     string `json:"path"`
	FileGlob string `json:"file_glob"`
	Limit    int    `json:"limit"`
	Context  int    `json:"context"`
}

// SearchResult is search_files' data. Results holds one result per line:
// "path:line: text" for content matches (context lines "path-line- text"),
// or a path for file matches. Total counts every match found, shown or
// not; Note says what was left out and how to narrow the search.
type SearchResult struct {
	Results string `json:"results"`
	Shown   int    `json:"shown"`
	Total   int    `json:"total"`
	Note    string `json:"note,omitempty"`
}

// Spec describes search_files. It only reads, so calls may run side by
// side and be retried.
func (s *SearchFiles) Spec() tool.Spec {
	return tool.Spec{
		Name:        "search_files",
		Description: searchDescription,
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regex (Go RE2 syntax) for content search, or glob for file search (e.g. '*.py', 'src/**/*.ts')."},
    "target": {"type": "string", "enum": ["content", "files"], "default": "content", "description": "'content' searches inside files; 'files' finds files by name."},
    "path": {"type": "string", "description": "Directory or file to search in (default: the working directory)."},
    "file_glob": {"type": "string", "description": "Only search files whose name matches this glob, e.g. '*.go' (content search)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": ` + strconv.Itoa(DefaultSearchLimit) + `, "description": "Maximum number of results to return."},
    "context": {"type": "integer", "minimum": 0, "maximum": 20, "default": 0, "description": "Lines of context before and after each match (content search)."}
  },
  "required": ["pattern"]
}`),
		Toolset:      Toolset,
		ParallelSafe: true,
		Idempotent:   true,
	}
}

// search is the state of one call.
type search struct {
	ctx     context.Context
	o       Options
	root    string
	re      *regexp.Regexp  // content search
	name    gitignore.Glob  // files search
	nameRel bool            // name gitignore.Glob holds "/": match the path, not the base name
	filter  *gitignore.Glob // file_glob
	fRel    bool
	limit   int
	context int
	out     []string
	shown   int
	total   int
	// cache holds files walkBatch read ahead; err is the failure that
	// stopped a search on an FS.
	cache map[string][]byte
	err   error
	// withheld counts the files a content search did not read because
	// they hold secrets (see writeguard.Guard.CheckRead).
	withheld int
}

// Call walks the tree under path, honouring .gitignore files, and returns
// the first limit results in path order.
func (s *SearchFiles) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be {pattern, target?, path?, file_glob?, limit?, context?}: %v", err)
	}
	if a.Pattern == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern is empty")
	}
	if a.Path == "" {
		a.Path = "."
	}
	root, err := s.o.abs(ctx, a.Path)
	if err != nil {
		return nil, err
	}
	if err := s.o.checkRead(ctx, root); err != nil {
		return nil, err
	}
	fi, err := s.o.stat(ctx, root)
	if err != nil {
		return nil, err
	}
	st := &search{ctx: ctx, o: s.o, root: root, limit: a.Limit, context: max(0, a.Context)}
	if st.limit <= 0 {
		st.limit = DefaultSearchLimit
	}
	switch a.Target {
	case "", "content":
		if st.re, err = regexp.Compile(a.Pattern); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern is not a valid regular expression (Go RE2 syntax; escape literal characters like ( [ . with \\): %v", err)
		}
	case "files":
		if st.name, err = gitignore.CompileGlob(a.Pattern); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern %q is not a valid glob: %v", a.Pattern, err)
		}
		st.nameRel = strings.Contains(strings.Trim(a.Pattern, "/"), "/")
	default:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "target must be \"content\" or \"files\", not %q", a.Target)
	}
	if a.FileGlob != "" {
		g, err := gitignore.CompileGlob(a.FileGlob)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "file_glob %q is not a valid glob: %v", a.FileGlob, err)
		}
		st.filter, st.fRel = &g, strings.Contains(strings.Trim(a.FileGlob, "/"), "/")
	}

	bfs, batch := s.o.FS.(BatchFS)
	switch {
	case fi.IsDir && batch:
		st.walkBatch(bfs, root, st.ancestorIgnores(root))
	case fi.IsDir:
		st.walk(root, st.ancestorIgnores(root))
	default:
		st.visit(root, fi.Size)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if st.err != nil {
		return nil, fsError(st.err)
	}
	res := SearchResult{Results: strings.Join(st.out, "\n"), Shown: st.shown, Total: st.total}
	switch {
	case st.total > st.shown:
		more := strconv.Itoa(st.total - st.shown)
		if st.total >= st.limit+maxCounted {
			more = "at least " + more
		}
		res.Note = more + " more matches not shown; narrow the pattern, path or file_glob, or raise limit"
	case st.total == 0:
		res.Note = "no matches"
	}
	if st.withheld > 0 {
		res.Note = strings.TrimPrefix(res.Note+fmt.Sprintf("; %d files were not searched because they hold secrets (.env files, hermes's own /proc entries)", st.withheld), "; ")
	}
	return res, nil
}

// full reports whether the search has counted enough to stop.
func (st *search) full() bool {
	return st.total >= st.limit+maxCounted || st.ctx.Err() != nil
}

// walk visits dir's entries in name order. stack holds the .gitignore
// files governing dir, outermost first.
func (st *search) walk(dir string, stack []*gitignore.File) {
	if ig := st.loadIgnore(dir); ig != nil {
		stack = append(stack[:len(stack):len(stack)], ig)
	}
	if st.o.FS != nil {
		st.walkFS(dir, stack)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if st.full() {
			return
		}
		if e.Name() == ".git" {
			continue
		}
		abs := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if !gitignore.Ignored(stack, abs, true) {
				st.walk(abs, stack)
			}
			continue
		}
		// Regular files and links to them; links to directories are not
		// followed, so a loop cannot trap the walk.
		fi, err := os.Stat(abs)
		if err != nil || !fi.Mode().IsRegular() || gitignore.Ignored(stack, abs, false) || st.withhold(abs, e.Type()&fs.ModeSymlink != 0) {
			continue
		}
		st.visit(abs, fi.Size())
	}
}

// walkFS is the loop of walk over the entries of dir on o.FS.
func (st *search) walkFS(dir string, stack []*gitignore.File) {
	entries, err := st.o.FS.ReadDir(st.ctx, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if st.full() {
			return
		}
		if e.Name == ".git" {
			continue
		}
		abs := path.Join(dir, e.Name)
		if e.Info.IsDir && !e.Link {
			if !gitignore.Ignored(stack, abs, true) {
				st.walk(abs, stack)
			}
			continue
		}
		if !e.Info.Regular || gitignore.Ignored(stack, abs, false) || st.withhold(abs, e.Link) {
			continue
		}
		st.visit(abs, e.Info.Size)
	}
}

// loadIgnore reads the .gitignore of dir, on o.FS when it is set.
func (st *search) loadIgnore(dir string) *gitignore.File {
	if st.o.FS == nil {
		return gitignore.Load(dir)
	}
	data, err := st.o.FS.ReadFile(st.ctx, path.Join(dir, ".gitignore"), maxIgnoreBytes)
	if err != nil {
		return nil
	}
	return gitignore.Parse(dir, bytes.NewReader(data))
}

// ancestorIgnores is ancestorIgnores, on o.FS when it is set.
func (st *search) ancestorIgnores(root string) []*gitignore.File {
	if st.o.FS == nil {
		return gitignore.Ancestors(root)
	}
	if bfs, ok := st.o.FS.(BatchFS); ok {
		return st.ancestorIgnoresBatch(bfs, root)
	}
	exists := func(p string) bool {
		_, err := st.o.FS.Stat(st.ctx, p)
		return err == nil
	}
	return gitignore.AncestorsWith(root, exists, st.loadIgnore)
}

// readFile reads a file to search, on o.FS when it is set.
func (st *search) readFile(abs string) ([]byte, error) {
	if st.o.FS == nil {
		return os.ReadFile(abs)
	}
	if st.cache != nil {
		if data, ok := st.cache[abs]; ok {
			return data, nil
		}
		return nil, fs.ErrNotExist // unreadable, or grew past the limit
	}
	return st.o.FS.ReadFile(st.ctx, abs, st.o.MaxSearchBytes)
}

// withhold reports whether a content search must not read abs, and
// counts it; link says abs is a symbolic link.
func (st *search) withhold(abs string, link bool) bool {
	if st.re == nil || st.o.readable(st.ctx, abs, link) {
		return false
	}
	st.withheld++
	return true
}

// visit searches one file.
func (st *search) visit(abs string, size int64) {
	rel := st.rel(abs)
	if st.re == nil {
		if st.matchName(st.name, st.nameRel, rel) {
			st.add(st.o.display(st.ctx, abs))
		}
		return
	}
	if st.filter != nil && !st.matchName(*st.filter, st.fRel, rel) {
		return
	}
	if size > st.o.MaxSearchBytes {
		return
	}
	data, err := st.readFile(abs)
	if err != nil || isBinary(data[:min(len(data), sniffLen)]) {
		return
	}
	st.grep(st.o.display(st.ctx, abs), string(data))
}

// rel is abs relative to the search root, slash-separated; the base name
// when abs is the root.
func (st *search) rel(abs string) string {
	rel, err := filepath.Rel(st.root, abs)
	if err != nil || rel == "." {
		rel = filepath.Base(abs)
	}
	return filepath.ToSlash(rel)
}

func (st *search) matchName(g gitignore.Glob, byPath bool, rel string) bool {
	if byPath {
		return g.Match(rel)
	}
	return g.Match(rel[strings.LastIndexByte(rel, '/')+1:])
}

// add records one result, shown while under the limit.
func (st *search) add(line string) {
	st.total++
	if st.shown < st.limit {
		st.shown++
		st.out = append(st.out, line)
	}
}

// grep adds the matching lines of one file, with context lines around the
// shown ones.
func (st *search) grep(name, text string) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	printed := -1 // index of the last line written for this file
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if !st.re.MatchString(l) {
			continue
		}
		if st.shown >= st.limit {
			st.total++
			if st.full() {
				return
			}
			continue
		}
		from := max(0, i-st.context, printed+1)
		if st.context > 0 && printed >= 0 && from > printed+1 {
			st.out = append(st.out, "--")
		} else if st.context > 0 && printed < 0 && len(st.out) > 0 {
			st.out = append(st.out, "--")
		}
		for j := from; j < i; j++ {
			st.out = append(st.out, st.format(name, j, lines[j], '-'))
		}
		st.add(st.format(name, i, l, ':'))
		printed = i
		// Trailing context stops at the next match, which prints itself.
		for j := i + 1; j <= min(len(lines)-1, i+st.context) && !st.re.MatchString(strings.TrimSuffix(lines[j], "\r")); j++ {
			st.out = append(st.out, st.format(name, j, lines[j], '-'))
			printed = j
		}
	}
}

func (st *search) format(name string, i int, line string, sep byte) string {
	line = cutLine(strings.TrimSuffix(line, "\r"), maxSearchLine)
	return fmt.Sprintf("%s%c%d%c %s", name, sep, i+1, sep, line)
}
