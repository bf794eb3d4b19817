package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// pageTitles are the pages' templates, each parsed with the layout,
// and their titles.
func pageTitles() map[string]string {
	return map[string]string{"login": "Log in", "turns": "Turns", "sessions": "Sessions", "session": "Session", "jobs": "Cron jobs",
		"deliveries": "Deliveries", "costs": "Costs", "platforms": "Platforms"}
}

// page is what every template gets: the layout's fields and the page's
// own Data.
type page struct {
	Title string
	// Nav is the page's entry in the menu.
	Nav string
	// CSRF is the token the page's forms carry.
	CSRF string
	// Error and Notice are shown at the top.
	Error, Notice string
	// Refresh makes the page reload itself every few seconds.
	Refresh bool
	Now     time.Time
	Data    any
}

// parsePages parses every page with the layout once; html/template
// escapes all that they show for where it stands (text, attribute, URL).
func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{"when": when, "dur": dur, "usd": usd, "short": short}
	out := map[string]*template.Template{}
	for name := range pageTitles() {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/timeline.html", "templates/"+name+".html"))
	}
	return out
}

// render writes a page whole, or a 500 when its template fails, so no
// half page is sent.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Nav = name
	p.Now = d.opt.Clock.Now()
	var buf bytes.Buffer
	if err := d.pages[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		d.opt.Logger.Error("dashboard: page failed", "page", name, "path", r.URL.Path, "error", err.Error())
		http.Error(w, "the page could not be shown; the log of hermes serve says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail shows a page with only the error that kept it from its data.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, name string, csrf string, err error) {
	d.opt.Logger.Warn("dashboard: reading a page's data failed", "page", name, "error", err.Error())
	d.render(w, r, http.StatusInternalServerError, name, page{Title: pageTitles()[name], CSRF: csrf, Error: d.opt.Redact(err.Error())})
}

// when shows a time in UTC to the second, "—" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// dur shows a duration rounded for reading.
func dur(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// usd shows a cost in dollars.
func usd(v float64) string {
	if v != 0 && v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// short cuts s to n runes, marking the cut.
func short(n int, s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
