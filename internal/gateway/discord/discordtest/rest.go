package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// The limits the server enforces, in Discord's units.
const (
	// MaxContent is the longest content, in code points.
	MaxContent = 2000
	// MaxCustomID is the longest custom_id of a button.
	MaxCustomID = 100
	maxLabel    = 80
)

// messageBody is a create or edit request.
type messageBody struct {
	Content          *string          `json:"content"`
	Components       *[]Row           `json:"components"`
	AllowedMentions  *AllowedMentions `json:"allowed_mentions"`
	MessageReference *Reference       `json:"message_reference"`
	Attachments      []struct {
		ID       int    `json:"id"`
		Filename string `json:"filename"`
	} `json:"attachments"`
	Flags int `json:"flags"`
}

// readBody decodes a JSON body, or the payload_json of a multipart one
// and the names of its files.
func readBody(r *http.Request) (messageBody, []string, *apiError) {
	var b messageBody
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			return b, nil, badRequest("multipart: %v", err)
		}
		_ = params
		if err := json.Unmarshal([]byte(r.FormValue("payload_json")), &b); err != nil {
			return b, nil, badRequest("payload_json: %v", err)
		}
		var files []string
		for i := 0; ; i++ {
			fh := r.MultipartForm.File[fmt.Sprintf("files[%d]", i)]
			if len(fh) == 0 {
				break
			}
			files = append(files, fh[0].Filename)
		}
		return b, files, nil
	}
	if mt != "application/json" {
		return b, nil, badRequest("Content-Type %q; send application/json or multipart/form-data", r.Header.Get("Content-Type"))
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return b, nil, badRequest("%v", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, nil, &apiError{status: 400, code: 50109, message: "The request body contains invalid JSON."}
	}
	return b, nil, nil
}

// readChecked reads a message body and enforces the limits on it.
func readChecked(r *http.Request) (messageBody, []string, *apiError) {
	b, files, aerr := readBody(r)
	if aerr == nil {
		aerr = check(b)
	}
	return b, files, aerr
}

// check enforces the limits on content and components.
func check(b messageBody) *apiError {
	if b.Content != nil {
		if n := utf8.RuneCountInString(*b.Content); n > MaxContent {
			return badRequest("content: Must be %d or fewer in length (got %d).", MaxContent, n)
		}
	}
	if b.Components == nil {
		return nil
	}
	if len(*b.Components) > 5 {
		return badRequest("components: Must be 5 or fewer in length.")
	}
	for _, row := range *b.Components {
		if row.Type != 1 || len(row.Components) == 0 || len(row.Components) > 5 {
			return badRequest("components: an action row (type 1) holds 1 to 5 components")
		}
		for _, btn := range row.Components {
			switch {
			case btn.Type != 2:
				return badRequest("components: type %d is not a button", btn.Type)
			case btn.CustomID == "" || utf8.RuneCountInString(btn.CustomID) > MaxCustomID:
				return badRequest("components.custom_id: Must be between 1 and %d in length.", MaxCustomID)
			case btn.Label == "" || utf8.RuneCountInString(btn.Label) > maxLabel:
				return badRequest("components.label: Must be between 1 and %d in length.", maxLabel)
			case btn.Style < 1 || btn.Style > 4:
				return badRequest("components.style: %d needs a url or a sku", btn.Style)
			}
		}
	}
	return nil
}

func (s *Server) createMessage(r *http.Request, channelID string) (any, *apiError) {
	b, files, aerr := readChecked(r)
	if aerr != nil {
		return nil, aerr
	}
	if (b.Content == nil || strings.TrimSpace(*b.Content) == "") && len(files) == 0 && (b.Components == nil || len(*b.Components) == 0) {
		return nil, &apiError{status: 400, code: 50006, message: "Cannot send an empty message"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channelID]
	if c == nil {
		return nil, &apiError{status: 404, code: 10003, message: "Unknown Channel"}
	}
	m := &Message{ID: s.newIDLocked(), ChannelID: channelID, GuildID: c.guild, Author: s.Bot,
		AllowedMentions: b.AllowedMentions, Mentions: []User{}, Attachments: []Attachment{}}
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Components != nil {
		m.Components = *b.Components
	}
	for _, f := range files {
		m.Attachments = append(m.Attachments, Attachment{ID: s.newIDLocked(), Filename: f})
	}
	if ref := b.MessageReference; ref != nil {
		orig := c.messages[ref.MessageID]
		if orig == nil && (ref.FailIfNotExists == nil || *ref.FailIfNotExists) {
			return nil, badRequest("message_reference: Unknown message")
		}
		m.Type = 19
		m.MessageReference = ref
		m.ReferencedMessage = orig
	}
	c.messages[m.ID] = m
	c.sent = append(c.sent, m.ID)
	s.changedLocked()
	return m, nil
}

func (s *Server) editMessage(r *http.Request, channelID, messageID string) (any, *apiError) {
	b, _, aerr := readChecked(r)
	if aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channelID]
	var m *Message
	if c != nil {
		m = c.messages[messageID]
	}
	if m == nil {
		return nil, &apiError{status: 404, code: 10008, message: "Unknown Message"}
	}
	if m.Author.ID != s.Bot.ID {
		return nil, &apiError{status: 403, code: 50005, message: "Cannot edit a message authored by another user"}
	}
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Components != nil {
		m.Components = *b.Components
	}
	if b.AllowedMentions != nil {
		m.AllowedMentions = b.AllowedMentions
	}
	m.Edits++
	s.changedLocked()
	return m, nil
}

// callback answers an interaction: once, with its token, as Discord
// takes it.
func (s *Server) callback(r *http.Request, id, token string) *apiError {
	var b struct {
		Type int `json:"type"`
		Data *struct {
			Content string `json:"content"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&b); err != nil {
		return &apiError{status: 400, code: 50109, message: "The request body contains invalid JSON."}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	want, ok := s.presses[id]
	if !ok || want != token {
		return &apiError{status: 404, code: 10062, message: "Unknown interaction"}
	}
	for _, c := range s.callbacks {
		if c.InteractionID == id {
			return &apiError{status: 400, code: 40060, message: "Interaction has already been acknowledged."}
		}
	}
	switch b.Type {
	case 4, 5, 6, 7:
	default:
		return badRequest("type: %d is not a response to a component", b.Type)
	}
	cb := Callback{InteractionID: id, Type: b.Type}
	if b.Data != nil {
		cb.Content = b.Data.Content
	}
	s.callbacks = append(s.callbacks, cb)
	s.changedLocked()
	return nil
}

// followup takes a message sent through an interaction's webhook, which
// works only after the interaction was acknowledged.
func (s *Server) followup(r *http.Request, appID, token string) (any, *apiError) {
	b, _, aerr := readChecked(r)
	if aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := ""
	for iid, tok := range s.presses {
		if tok == token {
			id = iid
		}
	}
	acked := false
	for _, c := range s.callbacks {
		acked = acked || c.InteractionID == id
	}
	if appID != s.AppID || id == "" || !acked {
		return nil, &apiError{status: 404, code: 10015, message: "Unknown Webhook"}
	}
	f := Followup{InteractionID: id, Flags: b.Flags}
	if b.Content != nil {
		f.Content = *b.Content
	}
	s.followups = append(s.followups, f)
	s.changedLocked()
	return map[string]any{"id": s.newIDLocked(), "content": f.Content, "flags": f.Flags}, nil
}
