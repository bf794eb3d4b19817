package ssh

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/tools/files"
)

// remoteListMany lists the directories named on stdin (NUL-terminated)
// as NUL-terminated pairs: the directory, then its entry as in
// remoteList.
const remoteListMany = `exec xargs -0 -r bash -c 'exec find -H "$@" -mindepth 1 -maxdepth 1 -printf "%h\0%y %Y %s %m %f\0"' find 2>/dev/null`

// ReadDirs lists several directories in one request, each in name order;
// one that cannot be listed has an empty listing.
func (f *remoteFS) ReadDirs(ctx context.Context, names []string) ([][]files.DirEntry, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out, _, _, err := f.exec(ctx, remoteListMany, nil, nulJoin(names), maxListing+1)
	if err != nil {
		return nil, err
	}
	if len(out) > maxListing {
		return nil, fmt.Errorf("listing %d directories on %s: more than %d bytes of entries", len(names), f.b.Name(), maxListing)
	}
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	lists := make([][]files.DirEntry, len(names))
	recs := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		dir := recs[i]
		if dir == "" {
			dir = "/"
		}
		k, ok := index[dir]
		if !ok {
			continue
		}
		if e, ok := parseEntry(recs[i+1]); ok {
			lists[k] = append(lists[k], e)
		}
	}
	for _, l := range lists {
		sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	}
	return lists, nil
}

// remoteReadMany reads the files named on stdin (NUL-terminated) up to $1
// bytes each and prints one line per file: "F" and the content in
// base64, or "E" when it is not a readable regular file.
const remoteReadMany = `m=$1
while IFS= read -r -d '' f; do
  if [ -f "$f" ] && [ -r "$f" ]; then
    printf F; head -c "$m" -- "$f" 2>/dev/null | base64 -w0; printf '\n'
  else
    printf 'E\n'
  fi
done`

// maxBatchRead caps the output of one batch read.
const maxBatchRead = 64 << 20

// ReadFiles reads several files in one request; a file that cannot be
// read, or is longer than max bytes, gives nil.
func (f *remoteFS) ReadFiles(ctx context.Context, names []string, max int64) ([][]byte, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out, stderr, code, err := f.exec(ctx, remoteReadMany, []string{strconv.FormatInt(max+1, 10)}, nulJoin(names), maxBatchRead+1)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, f.classify("reading", fmt.Sprintf("%d files", len(names)), stderr, code)
	}
	if len(out) > maxBatchRead {
		return nil, fmt.Errorf("reading %d files on %s: more than %d bytes", len(names), f.b.Name(), maxBatchRead)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < len(names) {
		return nil, fmt.Errorf("reading %d files on %s: %d answers", len(names), f.b.Name(), len(lines))
	}
	data := make([][]byte, len(names))
	for i := range names {
		l, ok := strings.CutPrefix(lines[i], "F")
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(l)
		if err != nil || int64(len(b)) > max {
			continue
		}
		data[i] = b
	}
	return data, nil
}

// remoteExist prints 1 or 0 for each path named on stdin (NUL-terminated)
// as it exists or not.
const remoteExist = `while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf 1; else printf 0; fi; done`

// Exist reports which of names exist, in one request.
func (f *remoteFS) Exist(ctx context.Context, names []string) ([]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out, stderr, code, err := f.exec(ctx, remoteExist, nil, nulJoin(names), int64(len(names))+1)
	if err != nil {
		return nil, err
	}
	if code != 0 || len(out) != len(names) {
		return nil, f.classify("checking", fmt.Sprintf("%d paths", len(names)), stderr, code)
	}
	has := make([]bool, len(names))
	for i := range names {
		has[i] = out[i] == '1'
	}
	return has, nil
}

// nulJoin is names, each NUL-terminated.
func nulJoin(names []string) []byte {
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(0)
	}
	return b.Bytes()
}
