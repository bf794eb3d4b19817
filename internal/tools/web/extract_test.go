package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

func extract(t *testing.T, e *Extract, urls ...string) ([]Page, error) {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"urls": urls})
	v, err := e.Call(context.Background(), raw)
	if err != nil {
		return nil, err
	}
	return v.([]Page), nil
}

func TestExtractOne(t *testing.T) {
	srv := site(t)
	e := NewExtract(Options{Client: srv.Client(), FetchTimeout: 2 * time.Second})
	tests := []struct {
		name, path, title string
		want, absent      []string
		finalPath         string
	}{
		{
			name:  "article without clutter",
			path:  "/article",
			title: "Tidal Power Comes of Age",
			want: []string{
				"# Tidal Power Comes of Age\n",
				"## Why the tides matter",
				"passed its ten-thousandth hour of uninterrupted generation",
				"Supporters answer that the learning curve has barely begun",
			},
			absent: []string{"World Affairs Section", "Copyright 2026", "Accept all cookies", "Buy cheap widgets", "dataLayer", "color: red"},
		},
		{name: "redirect", path: "/old-article", title: "Tidal Power Comes of Age", want: []string{"Why the tides matter"}, finalPath: "/article"},
		{name: "pdf", path: "/report.pdf", title: "Quarterly Report", want: []string{"Hello from the quarterly PDF"}},
		{name: "pdf by magic", path: "/download", title: "Quarterly Report", want: []string{"Hello from the quarterly PDF"}},
		{name: "short page whole", path: "/tiny", want: []string{"Just one short line."}},
		{name: "gbk page", path: "/gbk", title: "潮汐发电", want: []string{"潮汐发电已经连续运行一万小时"}},
		{name: "markdown as is", path: "/notes.md", title: "notes.md", want: []string{"# Notes\n\n- first\n- second"}},
		{name: "json indented", path: "/data.json", title: "data.json", want: []string{"{\n \"name\": \"hermes\",\n \"tags\": [\n  \"a\","}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pages, err := extract(t, e, srv.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			p := pages[0]
			if p.Error != "" || p.Truncated || p.Title != tc.title {
				t.Fatalf("page = %+v", p)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Content, w) {
					t.Errorf("content lacks %q:\n%s", w, p.Content)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(p.Content, a) {
					t.Errorf("content has %q:\n%s", a, p.Content)
				}
			}
			fp := tc.finalPath
			if fp == "" {
				fp = tc.path
			}
			if p.FinalURL != srv.URL+fp {
				t.Errorf("final_url = %q, want %q", p.FinalURL, srv.URL+fp)
			}
		})
	}
}

func TestExtractCut(t *testing.T) {
	srv := site(t)
	e := NewExtract(Options{Client: srv.Client()})
	pages, err := extract(t, e, srv.URL+"/huge")
	if err != nil {
		t.Fatal(err)
	}
	p := pages[0]
	if !p.Truncated {
		t.Fatal("huge page not marked truncated")
	}
	body, marker, ok := strings.Cut(p.Content, "\n\n[… cut at 15000 of ")
	if !ok || !strings.HasSuffix(marker, " characters; ask for a specific section or a narrower page]") {
		t.Fatalf("no cut marker at the end: %q", p.Content[len(p.Content)-200:])
	}
	if n := len([]rune(body)); n != DefaultExtractCharLimit {
		t.Errorf("kept %d characters, want %d", n, DefaultExtractCharLimit)
	}
	if !strings.HasPrefix(body, "# The Long Read\n\nParagraph 0 ") {
		t.Errorf("content starts %q", body[:60])
	}
}

func TestCapText(t *testing.T) {
	tests := []struct {
		in      string
		limit   int
		bodyCut bool
		want    string
		trunc   bool
	}{
		{"short", 10, false, "short", false},
		{"exactly10!", 10, false, "exactly10!", false},
		{"héllo wörld", 5, false, "héllo\n\n[… cut at 5 of 11 characters; ask for a specific section or a narrower page]", true},
		{"abc", 10, true, "abc\n\n[… cut at 3 of more than 3 characters; ask for a specific section or a narrower page]", true},
	}
	for _, tc := range tests {
		got, trunc := capText(tc.in, tc.limit, tc.bodyCut)
		if got != tc.want || trunc != tc.trunc {
			t.Errorf("capText(%q, %d, %v) = %q, %v; want %q, %v", tc.in, tc.limit, tc.bodyCut, got, trunc, tc.want, tc.trunc)
		}
	}
}

func TestExtractFailures(t *testing.T) {
	srv := site(t)
	e := NewExtract(Options{Client: srv.Client(), FetchTimeout: 200 * time.Millisecond})
	tests := []struct {
		name, url string
		code      tool.Code
		mention   string
	}{
		{"404", srv.URL + "/missing", tool.CodeNotFound, "HTTP 404 Not Found: <html><body><h1>404 Not Found"},
		{"timeout", srv.URL + "/slow", tool.CodeTimeout, "200ms"},
		{"image", srv.URL + "/photo.png", tool.CodeInvalidArguments, "cannot extract image/png"},
		{"scheme", "file:///etc/passwd", tool.CodeInvalidArguments, "not an http or https URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := extract(t, e, tc.url)
			te, ok := tool.AsError(err)
			if !ok || te.Code != tc.code || !strings.Contains(te.Message, tc.mention) {
				t.Fatalf("error = %v, want %s mentioning %q", err, tc.code, tc.mention)
			}
			if pages, _ := te.Data.([]Page); len(pages) != 1 || pages[0].Error == "" {
				t.Errorf("error data = %+v, want the failed page", te.Data)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestExtractMixed checks that failures stay with their URL and that
// results keep the order asked while fetches run concurrently.
func TestExtractMixed(t *testing.T) {
	srv := site(t)
	e := NewExtract(Options{Client: srv.Client(), FetchTimeout: 300 * time.Millisecond})
	start := time.Now()
	pages, err := extract(t, e, srv.URL+"/slow", srv.URL+"/article", srv.URL+"/missing", srv.URL+"/report.pdf", srv.URL+"/slow")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("two slow URLs took %s together; fetches are not concurrent", d)
	}
	wantErr := []bool{true, false, true, false, true}
	for i, p := range pages {
		if (p.Error != "") != wantErr[i] {
			t.Errorf("page %d (%s): error %q", i, p.URL, p.Error)
		}
	}
	if pages[1].Title != "Tidal Power Comes of Age" || pages[3].Title != "Quarterly Report" {
		t.Errorf("titles out of order: %q, %q", pages[1].Title, pages[3].Title)
	}
}

// blockingTransport stands in for the URL guard refusing an address,
// with the guard's wording.
type blockingTransport struct{}

func (blockingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, errors.New("refused to fetch " + r.URL.Host + ": " + r.URL.Hostname() + " is a private address")
}

// redirectGuard refuses redirects the way the guard's CheckRedirect does.
func redirectGuard(req *http.Request, via []*http.Request) error {
	return errors.New("the host " + req.URL.Hostname() + " matches \"*\" in the URL blocklist; blocked")
}

func TestExtractDenied(t *testing.T) {
	srv := site(t)
	tests := []struct {
		name, url, mention string
		client             *http.Client
	}{
		{"dial", "http://169.254.169.254/latest/meta-data", "refused to fetch 169.254.169.254: 169.254.169.254 is a private address", &http.Client{Transport: blockingTransport{}}},
		{"redirect", srv.URL + "/old-article", "in the URL blocklist", &http.Client{CheckRedirect: redirectGuard}},
	}
	for _, tc := range tests {
		_, err := extract(t, NewExtract(Options{Client: tc.client}), tc.url)
		te, ok := tool.AsError(err)
		if !ok || te.Code != tool.CodeDenied || !strings.Contains(te.Message, tc.mention) {
			t.Errorf("%s: error = %v, want denied with the guard's reason", tc.name, err)
		}
	}
}

func TestExtractArguments(t *testing.T) {
	e := NewExtract(Options{Client: http.DefaultClient})
	for _, raw := range []string{`{"urls": []}`, `{"urls": ["a","b","c","d","e","f"]}`, `{"urls": "https://x"}`, `[]`} {
		_, err := e.Call(context.Background(), json.RawMessage(raw))
		if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeInvalidArguments {
			t.Errorf("%s: error = %v, want invalid_arguments", raw, err)
		}
	}
	if err := NewExtract(Options{}).Available(); err == nil {
		t.Error("Available without a client = nil")
	}
	s := e.Spec()
	if s.Name != "web_extract" || s.Toolset != "web" || !s.ParallelSafe || !s.Idempotent || !json.Valid(s.Parameters) {
		t.Errorf("spec = %+v", s)
	}
}

func BenchmarkExtractArticle(b *testing.B) {
	page := hugePage(1100) // about 200 KB of HTML
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	e := NewExtract(Options{Client: srv.Client()})
	raw, _ := json.Marshal(map[string]any{"urls": []string{srv.URL}})
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := e.Call(context.Background(), raw); err != nil {
			b.Fatal(err)
		}
	}
}
