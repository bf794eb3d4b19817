package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheckpointFile is the cost of keeping one changed file of
// 10 KB in a turn of its own: Before (read and store its content), Commit
// (store its content after, write the manifest, prune to the default 20
// turns), and the bytes one such turn adds to an empty store.
//
//	go test -run '^$' -bench CheckpointFile ./checkpoint
func BenchmarkCheckpointFile(b *testing.B) {
	work, dir := b.TempDir(), b.TempDir()
	s := Open(dir, Options{})
	body := strings.Repeat("a line of source code in a file of ten kilobytes\n", 205)
	i := 0
	for b.Loop() {
		i++
		p := filepath.Join(work, fmt.Sprintf("f%d.go", i%50))
		if err := os.WriteFile(p, []byte(body+fmt.Sprint(i)), 0o644); err != nil {
			b.Fatal(err)
		}
		turn := s.Begin("s", work)
		if err := turn.Before(p); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body+fmt.Sprint(-i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := turn.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	fresh := Open(b.TempDir(), Options{})
	p := filepath.Join(work, "one.go")
	os.WriteFile(p, []byte(body), 0o644)
	turn := fresh.Begin("s", work)
	turn.Before(p)
	os.WriteFile(p, []byte(body+"changed"), 0o644)
	turn.Commit()
	var size int64
	filepath.WalkDir(fresh.dir, func(p string, d os.DirEntry, err error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	b.ReportMetric(float64(size), "bytes/file")
}
