package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/hermes-go/hermes/internal/docconv/pdftest"
)

// articlePage is a news page with the clutter real pages carry around
// the article: navigation, a cookie banner, ads, a sidebar and a footer.
const articlePage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Tidal Power Comes of Age | Coastal Times</title>
<meta property="og:title" content="Tidal Power Comes of Age">
<script>window.dataLayer = [];</script>
<style>.ad { color: red }</style>
</head><body>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. <button>Accept all cookies</button></div>
<header class="site-header"><nav class="main-nav"><ul>
<li><a href="/">Home</a></li><li><a href="/world">World Affairs Section</a></li><li><a href="/sport">Sport</a></li>
</ul></nav></header>
<aside class="sidebar ad-banner"><div class="ad">Buy cheap widgets now! Limited offer.</div></aside>
<main><article>
<h1>Tidal Power Comes of Age</h1>
<p class="byline">By Ada Marsh</p>
<p>Engineers in the north of Scotland have spent a decade proving that the tides can drive turbines as reliably as any river, and this winter the array off the Pentland Firth passed its ten-thousandth hour of uninterrupted generation.</p>
<p>The turbines sit on the seabed in water forty metres deep, where the current runs at up to five metres a second. Each blade is designed to flex rather than snap, which the operators say explains why the maintenance bill has fallen by half since the first prototypes were installed.</p>
<h2>Why the tides matter</h2>
<p>Unlike wind and sunshine, the tides can be predicted years in advance, down to the minute. Grid operators value that predictability highly, because it lets them plan the rest of the system around a known supply instead of holding expensive reserves in case the weather changes.</p>
<p>Critics point out that suitable sites are rare and that the costs per megawatt-hour remain above those of offshore wind. Supporters answer that the learning curve has barely begun, and that the same was said of wind power twenty years ago.</p>
</article></main>
<footer class="site-footer"><p>Copyright 2026 Coastal Times Media Group. All rights reserved.</p><a href="/privacy">Privacy policy</a></footer>
</body></html>`

// hugePage is an article far over the character cap.
func hugePage(paragraphs int) string {
	var b strings.Builder
	b.WriteString("<html><head><title>The Long Read</title></head><body><nav><a href='/'>Home</a></nav><article><h1>The Long Read</h1>")
	for i := range paragraphs {
		fmt.Fprintf(&b, "<p>Paragraph %d keeps going about harbours, ships and the people who sail them, because long reads are long and every paragraph adds a little more detail to the story.</p>\n", i)
	}
	b.WriteString("</article><footer>Footer text</footer></body></html>")
	return b.String()
}

// site serves the fixtures of the extraction tests.
func site(t testing.TB) *httptest.Server {
	pdfBytes := pdftest.Build("Quarterly Report", "Hello from the quarterly PDF")
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articlePage)
	})
	mux.HandleFunc("/old-article", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdfBytes)
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(pdfBytes) // recognised by its %PDF- magic
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, hugePage(400))
	})
	mux.HandleFunc("/tiny", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><p>Just one short line.</p></body></html>")
	})
	mux.HandleFunc("/gbk", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		page, _ := simplifiedchinese.GBK.NewEncoder().String(`<html><head><meta charset="gbk"><title>潮汐发电</title></head><body><article><h1>潮汐发电</h1><p>潮汐发电已经连续运行一万小时，工程师们说这证明了海洋能源的可靠性。</p></article></body></html>`)
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/notes.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprint(w, "# Notes\n\n- first\n- second\n")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"hermes","tags":["a","b"]}`)
	})
	mux.HandleFunc("/photo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\nxxxx"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; the client gives up
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html><body><h1>404 Not Found</h1><p>No such page.</p></body></html>", http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
