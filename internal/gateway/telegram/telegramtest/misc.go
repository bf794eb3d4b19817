package telegramtest

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxDownload is the largest file the cloud Bot API lets a bot download.
const MaxDownload = 20 << 20

func (s *Server) sendMessageDraft(_ *http.Request, p params) (any, *apiError) {
	draft, aerr := p.int("draft_id")
	if aerr != nil {
		return nil, aerr
	}
	if draft == 0 {
		return nil, badRequest("invalid draft_id specified")
	}
	if _, aerr := checkText(p.str("text"), p.str("parse_mode"), false); aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, _, aerr := s.targetLocked(p)
	if aerr != nil {
		return nil, aerr
	}
	if c.info.Type != "private" {
		return nil, badRequest("TEXTDRAFT_PEER_INVALID")
	}
	s.drafts = append(s.drafts, Draft{ChatID: c.info.ID, DraftID: draft, Text: p.str("text")})
	s.changedLocked()
	return true, nil
}

func (s *Server) answerCallbackQuery(_ *http.Request, p params) (any, *apiError) {
	id := p.str("callback_query_id")
	if id == "" {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	if utf8.RuneCountInString(p.str("text")) > 200 {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, Answer{ID: id, Text: p.str("text"), ShowAlert: p.str("show_alert") == "true"})
	s.changedLocked()
	return true, nil
}

func (s *Server) sendChatAction(_ *http.Request, p params) (any, *apiError) {
	id, aerr := p.chatID()
	if aerr != nil {
		return nil, aerr
	}
	thread, aerr := p.int("message_thread_id")
	if aerr != nil {
		return nil, aerr
	}
	if thread == 1 {
		return nil, badRequest("message thread not found")
	}
	if p.str("action") == "" {
		return nil, badRequest("wrong parameter action in request")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.actions = append(s.actions, Action{ChatID: id, ThreadID: int(thread), Action: p.str("action")})
	s.changedLocked()
	return true, nil
}

func (s *Server) setMyCommands(_ *http.Request, p params) (any, *apiError) {
	var cmds []Command
	if aerr := p.json("commands", &cmds); aerr != nil {
		return nil, aerr
	}
	commandRE := regexp.MustCompile(`^[a-z0-9_]{1,32}$`)
	for _, c := range cmds {
		if !commandRE.MatchString(c.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := utf8.RuneCountInString(c.Description); n < 1 || n > 256 {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	if len(cmds) > 100 {
		return nil, badRequest("too many commands")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands = cmds
	s.changedLocked()
	return true, nil
}

func (s *Server) getFile(_ *http.Request, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[p.str("file_id")]
	if f == nil {
		return nil, badRequest("invalid file_id")
	}
	if f.info.FileSize > MaxDownload {
		return nil, badRequest("file is too big")
	}
	return f.info, nil
}

func (s *Server) serveFile(w http.ResponseWriter, token, path string) {
	s.mu.Lock()
	f := s.paths[path]
	s.mu.Unlock()
	if token != s.Token || f == nil {
		http.NotFound(w, nil)
		return
	}
	_, _ = w.Write(f.data)
}

// AddFile stores data as a file and returns its file_id. size is the size
// Telegram announces for it, 0 for len(data): a test can announce a file
// too big to download without holding its bytes.
func (s *Server) AddFile(name string, data []byte, size int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addFileLocked(name, data, size)
}

func (s *Server) addFileLocked(name string, data []byte, size int64) string {
	s.nextFile++
	if size == 0 {
		size = int64(len(data))
	}
	id := fmt.Sprintf("file-%d", s.nextFile)
	f := &file{data: data, info: File{
		FileID: id, FileUniqueID: fmt.Sprintf("u%d", s.nextFile), FileSize: size,
		FilePath: fmt.Sprintf("files/%d/%s", s.nextFile, name),
	}}
	s.files[id] = f
	s.paths[f.info.FilePath] = f
	return id
}

// sendFile is sendDocument and sendPhoto: the file comes as a multipart
// part (or an earlier file_id), with a caption.
func (s *Server) sendFile(kind string) handler {
	return func(_ *http.Request, p params) (any, *apiError) {
		caption, kb, aerr := content(p, "caption")
		if aerr != nil {
			return nil, aerr
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		c, thread, aerr := s.targetLocked(p)
		if aerr != nil {
			return nil, aerr
		}
		m := &Message{From: &s.Bot, MessageThreadID: thread, IsTopicMessage: thread != 0,
			Caption: caption, Raw: p.str("caption"), ParseMode: p.str("parse_mode"), ReplyMarkup: kb}
		up, ok := p.files[kind]
		var id string
		switch {
		case ok:
			id = s.addFileLocked(up.name, up.data, 0)
		case s.files[p.str(kind)] != nil:
			id = p.str(kind)
		default:
			return nil, badRequest("there is no %s in the request", kind)
		}
		f := s.files[id]
		if kind == "photo" {
			if f.info.FileSize > 10<<20 {
				return nil, badRequest("PHOTO_INVALID_DIMENSIONS")
			}
			m.Photo = []PhotoSize{{FileID: id, FileUniqueID: f.info.FileUniqueID, Width: 1, Height: 1, FileSize: f.info.FileSize}}
		} else {
			m.Document = &Document{FileID: id, FileUniqueID: f.info.FileUniqueID, FileName: up.name, FileSize: f.info.FileSize}
		}
		s.addLocked(c, m)
		c.sent = append(c.sent, m.MessageID)
		return m, nil
	}
}

// FileData returns the bytes of the file with id.
func (s *Server) FileData(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.files[id]; f != nil {
		return slices.Clone(f.data)
	}
	return nil
}

// Commands returns the commands setMyCommands set last.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.commands)
}

// Actions returns the sendChatAction calls so far.
func (s *Server) Actions() []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.actions)
}

// Answers returns the answerCallbackQuery calls so far.
func (s *Server) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
}

// Drafts returns the sendMessageDraft calls so far.
func (s *Server) Drafts() []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.drafts)
}

// Calls returns the methods called so far, in order, as the client spelt
// them.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// CallCount counts the calls of method (case-insensitive).
func (s *Server) CallCount(method string) int {
	n := 0
	for _, c := range s.Calls() {
		if strings.EqualFold(c, method) {
			n++
		}
	}
	return n
}
