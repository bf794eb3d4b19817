package browser

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
)

// snapshotJS is a function expression taking one argument, full, and
// returning the page's text view.
//
//go:embed snapshot.js
var snapshotJS string

// Caps of the snapshot text. An action's result carries a shorter one,
// since the model usually only needs to see what changed; it can ask for
// browser_snapshot when it needs more.
const (
	snapshotLimit       = 20000
	actionSnapshotLimit = 8000
)

// Page is what navigation and every action return: where the tab is now
// and what it shows.
type Page struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Status   int64  `json:"status,omitempty"`
	Snapshot string `json:"snapshot"`
	// Truncated says the snapshot was cut at the limit.
	Truncated bool `json:"truncated,omitempty"`
}

type pageInfo struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// state reads the tab's URL, title and snapshot in one evaluation, capped
// at limit characters.
func state(call context.Context, t *tab, full bool, limit int) (Page, error) {
	expr := fmt.Sprintf(`(() => ({url: location.href, title: document.title, text: (%s)(%t)}))()`, snapshotJS, full)
	var info pageInfo
	var err error
	// A page that is still replacing itself (a click that navigated)
	// has no execution context for a moment; try again shortly.
	for range 5 {
		info, err = run(call, t, "reading the page", ActionTimeout, chromedp.Evaluate[pageInfo](expr))
		if err == nil || call.Err() != nil || !strings.Contains(err.Error(), "context") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return Page{}, err
	}
	p := Page{URL: info.URL, Title: info.Title, Snapshot: info.Text}
	if p.Snapshot == "" {
		p.Snapshot = "(the page shows no text or controls)"
	}
	if utf8.RuneCountInString(p.Snapshot) > limit {
		r := []rune(p.Snapshot)
		cut := strings.LastIndexByte(string(r[:limit]), '\n')
		if cut < 0 {
			cut = len(string(r[:limit]))
		}
		note := "call browser_snapshot to see up to 20,000 characters"
		if limit >= snapshotLimit {
			note = "the rest of the page is not shown; use web_extract on this URL to read long text"
		}
		p.Snapshot = string(r[:limit])[:cut] + fmt.Sprintf("\n[… snapshot cut at %d of %d characters; %s]", limit, len(r), note)
		p.Truncated = true
	}
	return p, nil
}

// settle waits briefly for what an action set off, a navigation or a
// script that rewrites the page, to finish: until the document is
// complete, at most a few seconds. Errors are ignored, since the page may
// be between documents; the snapshot that follows retries on its own.
func settle(call context.Context, t *tab) {
	deadline := time.Now().Add(5 * time.Second)
	time.Sleep(150 * time.Millisecond)
	for time.Now().Before(deadline) && call.Err() == nil {
		rs, err := run(call, t, "waiting for the page", 2*time.Second, chromedp.Evaluate[string](`document.readyState`))
		if err == nil && rs == "complete" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
