package slacktest

import (
	"fmt"
	"net/http"
	"net/url"
)

// share keeps files for download and returns their objects as a message
// event carries them.
func (s *Server) share(files []File) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, f := range files {
		s.nextID++
		id := fmt.Sprintf("F%06d", s.nextID)
		path := "/files/" + id + "/" + url.PathEscape(f.Name)
		s.files[path] = f.Data
		out = append(out, map[string]any{"id": id, "name": f.Name, "mimetype": f.MIME, "size": len(f.Data),
			"url_private": s.http.URL + path, "url_private_download": s.http.URL + path + "?download=1"})
	}
	return out
}

// serveFile serves a shared file to the bot token. Without it Slack
// answers 200 with its sign-in page, not an error, so a client that
// forgets the token saves HTML: the server does the same.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[r.URL.EscapedPath()]
	s.mu.Unlock()
	switch {
	case bearer(r) != s.BotToken:
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!DOCTYPE html><html><body>Sign in to Slack</body></html>")
	case !ok:
		http.NotFound(w, r)
	default:
		w.Write(data)
	}
}
