package telegramtest

import "net/http"

// Handler returns the server's HTTP handler, the one behind URL, so that a
// program can serve the Bot API behind middleware of its own on a
// listener it chooses: a load test, say, that times when each update was
// handed to a poll and when each bot message arrived. Both URL and the
// program's listener serve the same chats.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }
