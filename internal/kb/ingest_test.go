package kb

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/docconv/pdftest"
	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// openKB opens a KB over a new, empty database of backend.
func openKB(t testing.TB, backend string, opts Options) *KB {
	t.Helper()
	return openKBOn(t, dbtest.Open(t, backend), opts)
}

// openKBOn opens a KB over db with a fake clock unless opts has one.
func openKBOn(t testing.TB, db sqldb.DB, opts Options) *KB {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	}
	return New(db, opts)
}

// writeFiles writes files (path relative to dir → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// chunkIDs maps each source of the database to its chunk ids, joined.
func chunkIDs(t *testing.T, k *KB) map[string]string {
	t.Helper()
	rows, err := k.db.Reader().Query(`SELECT s.uri, c.id FROM kb_sources s LEFT JOIN kb_chunks c ON c.source = s.id ORDER BY s.id, c.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var uri string
		var id *int64
		if err := rows.Scan(&uri, &id); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(uri)
		switch {
		case id == nil:
			out[name] = ""
		case out[name] == "":
			out[name] = fmt.Sprint(*id)
		default:
			out[name] += "," + fmt.Sprint(*id)
		}
	}
	return out
}

// statuses is each source's status in rep, by base name.
func statuses(rep Report) map[string]Status {
	out := map[string]Status{}
	for _, s := range rep.Sources {
		out[filepath.Base(s.URI)] = s.Status
	}
	return out
}

// TestAddFolder ingests a folder of every kind: .gitignore and hidden
// entries are skipped, a corrupt PDF fails by name while the rest go in,
// adding again reads nothing new, an edit replaces only that source's
// chunks and a deleted file loses its source and chunks.
func TestAddFolder(t *testing.T) { eachBackend(t, testAddFolder) }

func testAddFolder(t *testing.T, backend string) {
	k := openKB(t, backend, Options{})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":        "build/\n*.log\n",
		"guide.md":          "# Guide\n## Deploy\nRun the rolling restart.\n",
		"zh.md":             "# 部署\n数据库迁移脚本在发布前运行。\n",
		"notes.txt":         "plain notes about payroll\n",
		"page.html":         "<html><head><title>Page</title></head><body><article><h1>Page</h1><p>HTML body about invoices and the accounts team.</p></article></body></html>",
		"src/main.go":       "package main\n\nfunc main() {}\n",
		"build/out.md":      "# ignored\n",
		"debug.log":         "ignored\n",
		".hidden/secret.md": "# hidden\n",
		"image.png":         "\x89PNG\x00\x00",
		"broken.pdf":        "%PDF-1.4 this is not a PDF",
	})
	writeFiles(t, dir, map[string]string{"manual.pdf": string(pdftest.Build("Manual", "Page one: onboarding", "Page two: payroll"))})
	var progress []Progress
	rep, err := k.Add(t.Context(), AddRequest{KB: "docs", Sources: []string{dir}, Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"guide.md": Added, "zh.md": Added, "notes.txt": Added, "page.html": Added, "main.go": Added, "manual.pdf": Added, "broken.pdf": Failed}
	if got := statuses(rep); len(got) != len(want) {
		t.Fatalf("statuses %v, want %v", got, want)
	} else {
		for name, st := range want {
			if got[name] != st {
				t.Errorf("%s: %s, want %s", name, got[name], st)
			}
		}
	}
	if f := rep.Failed(); len(f) != 1 || !strings.Contains(f[0].Err.Error(), "broken.pdf") {
		t.Errorf("failures %v, want broken.pdf named", f)
	}
	if len(progress) != 7 || progress[6].Chunks != rep.Chunks || rep.Bytes == 0 {
		t.Errorf("progress %+v, report %+v", progress, rep.Progress)
	}
	before := chunkIDs(t, k)
	if before["broken.pdf"] != "" || before["manual.pdf"] == "" {
		t.Errorf("chunks %v", before)
	}

	// Again: nothing is read.
	rep, err = k.Add(t.Context(), AddRequest{KB: "docs", Sources: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Sources {
		if s.Status != Unchanged && filepath.Base(s.URI) != "broken.pdf" || s.Bytes != 0 && s.Status == Unchanged {
			t.Errorf("second add: %s %s (%d bytes read)", s.URI, s.Status, s.Bytes)
		}
	}

	// Edit one file, touch another without changing it, delete a third.
	writeFiles(t, dir, map[string]string{"guide.md": "# Guide\n## Deploy\nRun the blue-green switch.\n"})
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "notes.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "zh.md")); err != nil {
		t.Fatal(err)
	}
	rep, err = k.Add(t.Context(), AddRequest{KB: "docs", Sources: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	if got["guide.md"] != Updated || got["notes.txt"] != Unchanged || got["zh.md"] != Removed || got["main.go"] != Unchanged {
		t.Errorf("third add: %v", got)
	}
	after := chunkIDs(t, k)
	for name, ids := range before {
		switch name {
		case "guide.md":
			if after[name] == ids || after[name] == "" {
				t.Errorf("guide.md chunks %q → %q, want new ones", ids, after[name])
			}
		case "zh.md":
			if _, ok := after[name]; ok {
				t.Errorf("zh.md is still a source")
			}
		default:
			if after[name] != ids {
				t.Errorf("%s chunks %q → %q, want them untouched", name, ids, after[name])
			}
		}
	}
	var n int
	indexed := `SELECT count(*) FROM kb_chunks_fts WHERE kb_chunks_fts MATCH '"rolling"'`
	if backend == "postgres" {
		indexed = `SELECT count(*) FROM kb_chunks WHERE search_words @@ to_tsquery('simple', 'rolling')`
	}
	if err := k.db.Reader().QueryRow(indexed).Scan(&n); err != nil || n != 0 {
		t.Errorf("the replaced text is still indexed: %d rows, %v", n, err)
	}
}

// TestAddRejects: bad names and tags, and paths that do not exist, are
// errors naming the value and what is accepted, before anything is read.
func TestAddRejects(t *testing.T) { eachBackend(t, testAddRejects) }

func testAddRejects(t *testing.T, backend string) {
	k := openKB(t, backend, Options{})
	for _, tt := range []struct {
		req  AddRequest
		want string
	}{
		{AddRequest{KB: "my kb", Sources: []string{"."}}, `knowledge base name "my kb": want 1–64 letters`},
		{AddRequest{KB: "-x", Sources: []string{"."}}, `"-x"`},
		{AddRequest{Tags: []string{"a,b"}, Sources: []string{"."}}, `tag "a,b"`},
		{AddRequest{Sources: []string{"/no/such/file.md"}}, `source "/no/such/file.md"`},
	} {
		_, err := k.Add(t.Context(), tt.req)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.req, err, tt.want)
		}
	}
}

// TestAddURL fetches pages through the guard: a loopback server is
// refused by default, and admitted when the guard allows private
// addresses; an unchanged page is not chunked again.
func TestAddURL(t *testing.T) { eachBackend(t, testAddURL) }

func testAddURL(t *testing.T, backend string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html><head><title>Runbook</title></head><body><article><h1>Runbook</h1><h2>Restart</h2><p>Drain the queue first, then restart the worker pool.</p></article></body></html>"))
		case "/notes.md":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("# Notes\nmarkdown served as text\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	rep, err := openKB(t, backend, Options{}).Add(t.Context(), AddRequest{Sources: []string{srv.URL + "/page"}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Failed(); len(f) != 1 || !strings.Contains(f[0].Err.Error(), "/page") {
		t.Errorf("a loopback URL with the default guard: %+v", rep.Sources)
	} else if _, ok := netguard.IsBlocked(f[0].Err); !ok {
		t.Errorf("refusal %v does not say why", f[0].Err)
	}

	k := openKB(t, backend, Options{Guard: &netguard.Guard{AllowPrivate: true}})
	rep, err = k.Add(t.Context(), AddRequest{Sources: []string{srv.URL + "/page", srv.URL + "/notes.md", srv.URL + "/missing"}})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	if got["page"] != Added || got["notes.md"] != Added || got["missing"] != Failed {
		t.Fatalf("statuses %v: %+v", got, rep.Sources)
	}
	var heading string
	if err := k.db.Reader().QueryRow(`SELECT c.heading FROM kb_chunks c JOIN kb_sources s ON s.id = c.source WHERE s.uri LIKE '%/page' AND c.text LIKE '%Drain%'`).Scan(&heading); err != nil || heading != "Runbook > Restart" {
		t.Errorf("page heading %q, %v", heading, err)
	}
	rep, _ = k.Add(t.Context(), AddRequest{Sources: []string{srv.URL + "/page"}})
	if got := statuses(rep); got["page"] != Unchanged {
		t.Errorf("the same page again: %v", got)
	}
}
