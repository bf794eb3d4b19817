package files

import (
	"bytes"
	"path"

	"github.com/hermes-go/hermes/internal/gitignore"
)

// Limits of one batch of files read by walkBatch.
const (
	batchFiles = 256
	batchBytes = 8 << 20
)

// walkBatch is walk on a BatchFS: it lists the tree level by level, one
// request per level, skipping ignored directories as walk does, then
// visits the files in walk's order, reading them in batches. A failed
// request stops the search with st.err set.
func (st *search) walkBatch(bfs BatchFS, root string, stack []*gitignore.File) {
	type dirState struct {
		entries []DirEntry
		stack   []*gitignore.File // the rules governing the entries
	}
	dirs := map[string]*dirState{}
	parent := map[string][]*gitignore.File{root: stack}
	for level := []string{root}; len(level) > 0; {
		if st.ctx.Err() != nil {
			return
		}
		lists, err := bfs.ReadDirs(st.ctx, level)
		if err != nil {
			st.err = err
			return
		}
		var igPaths []string
		var igDirs []string
		for i, d := range level {
			for _, e := range lists[i] {
				if e.Name == ".gitignore" && e.Info.Regular {
					igPaths = append(igPaths, path.Join(d, ".gitignore"))
					igDirs = append(igDirs, d)
				}
			}
		}
		igData, err := bfs.ReadFiles(st.ctx, igPaths, maxIgnoreBytes)
		if err != nil {
			st.err = err
			return
		}
		own := map[string]*gitignore.File{}
		for i, d := range igDirs {
			if igData[i] != nil {
				own[d] = gitignore.Parse(d, bytes.NewReader(igData[i]))
			}
		}
		var next []string
		for i, d := range level {
			s := parent[d]
			if ig := own[d]; ig != nil {
				s = append(s[:len(s):len(s)], ig)
			}
			dirs[d] = &dirState{entries: lists[i], stack: s}
			for _, e := range lists[i] {
				if e.Name == ".git" || !e.Info.IsDir || e.Link {
					continue
				}
				abs := path.Join(d, e.Name)
				if !gitignore.Ignored(s, abs, true) {
					parent[abs] = s
					next = append(next, abs)
				}
			}
		}
		level = next
	}

	// The files in walk's order.
	type file struct {
		abs  string
		size int64
	}
	var order []file
	var collect func(d string)
	collect = func(d string) {
		ds := dirs[d]
		for _, e := range ds.entries {
			if e.Name == ".git" {
				continue
			}
			abs := path.Join(d, e.Name)
			if e.Info.IsDir && !e.Link {
				if dirs[abs] != nil {
					collect(abs)
				}
				continue
			}
			if !e.Info.Regular || gitignore.Ignored(ds.stack, abs, false) || st.withhold(abs, e.Link) {
				continue
			}
			order = append(order, file{abs, e.Info.Size})
		}
	}
	collect(root)

	for i := 0; i < len(order) && !st.full(); {
		// The next batch, and the files of it to read.
		j, bytes := i, int64(0)
		var names []string
		for ; j < len(order) && j-i < batchFiles && bytes < batchBytes; j++ {
			if st.re != nil && st.wants(order[j].abs, order[j].size) {
				names = append(names, order[j].abs)
				bytes += order[j].size
			}
		}
		data, err := bfs.ReadFiles(st.ctx, names, st.o.MaxSearchBytes)
		if err != nil {
			st.err = err
			return
		}
		st.cache = make(map[string][]byte, len(names))
		for k, n := range names {
			if data[k] != nil {
				st.cache[n] = data[k]
			}
		}
		for ; i < j && !st.full(); i++ {
			st.visit(order[i].abs, order[i].size)
		}
		st.cache = nil
	}
}

// wants reports whether a content search reads abs, of size bytes.
func (st *search) wants(abs string, size int64) bool {
	if st.filter != nil && !st.matchName(*st.filter, st.fRel, st.rel(abs)) {
		return false
	}
	return size <= st.o.MaxSearchBytes
}

// ancestorIgnoresBatch is ancestorIgnores on a BatchFS, in two requests:
// which ancestors hold a .git, then their .gitignore files.
func (st *search) ancestorIgnoresBatch(bfs BatchFS, root string) []*gitignore.File {
	dirs := []string{root}
	for d := root; path.Dir(d) != d; {
		d = path.Dir(d)
		dirs = append(dirs, d)
	}
	probes := make([]string, len(dirs))
	for i, d := range dirs {
		probes[i] = path.Join(d, ".git")
	}
	has, err := bfs.Exist(st.ctx, probes)
	if err != nil {
		st.err = err
		return nil
	}
	if has[0] {
		return nil // root is the repository itself
	}
	top := -1
	for i := 1; i < len(dirs); i++ {
		if has[i] {
			top = i
			break
		}
	}
	if top < 0 {
		return nil
	}
	ups := dirs[1 : top+1]
	names := make([]string, len(ups))
	for i, d := range ups {
		names[i] = path.Join(d, ".gitignore")
	}
	data, err := bfs.ReadFiles(st.ctx, names, maxIgnoreBytes)
	if err != nil {
		st.err = err
		return nil
	}
	var stack []*gitignore.File
	for i := len(ups) - 1; i >= 0; i-- {
		if data[i] == nil {
			continue
		}
		if ig := gitignore.Parse(ups[i], bytes.NewReader(data[i])); ig != nil {
			stack = append(stack, ig)
		}
	}
	return stack
}
