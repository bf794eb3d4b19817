package telegramtest

import "encoding/json"

// The Bot API objects the server reads and writes, with the fields
// adapters use. They are the server's own, so a test checks the adapter
// against the protocol rather than against the adapter's idea of it.

// User is a Telegram user or bot.
type User struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

// Chat is a private chat, group, supergroup or channel.
type Chat struct {
	ID      int64  `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title,omitempty"`
	IsForum bool   `json:"is_forum,omitempty"`
}

// Entity is a MessageEntity; Offset and Length count UTF-16 code units.
type Entity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	User   *User  `json:"user,omitempty"`
}

// PhotoSize is one size of a photo.
type PhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// Document is a general file.
type Document struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// Voice is a voice note.
type Voice struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

// Button is an InlineKeyboardButton.
type Button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

// Keyboard is an InlineKeyboardMarkup.
type Keyboard struct {
	InlineKeyboard [][]Button `json:"inline_keyboard"`
}

// Message is a message in a chat. HTML and ParseMode are what the bot
// sent, kept by the server for tests; Text is the text after parsing.
type Message struct {
	MessageID       int         `json:"message_id"`
	MessageThreadID int         `json:"message_thread_id,omitempty"`
	IsTopicMessage  bool        `json:"is_topic_message,omitempty"`
	From            *User       `json:"from,omitempty"`
	Chat            Chat        `json:"chat"`
	Date            int64       `json:"date"`
	EditDate        int64       `json:"edit_date,omitempty"`
	Text            string      `json:"text,omitempty"`
	Entities        []Entity    `json:"entities,omitempty"`
	Caption         string      `json:"caption,omitempty"`
	CaptionEntities []Entity    `json:"caption_entities,omitempty"`
	Photo           []PhotoSize `json:"photo,omitempty"`
	Document        *Document   `json:"document,omitempty"`
	Voice           *Voice      `json:"voice,omitempty"`
	ReplyToMessage  *Message    `json:"reply_to_message,omitempty"`
	ReplyMarkup     *Keyboard   `json:"reply_markup,omitempty"`

	// Raw is the text or caption exactly as the bot sent it.
	Raw string `json:"-"`
	// ParseMode is the parse_mode the bot sent it with.
	ParseMode string `json:"-"`
	// Edits counts the edits of the message.
	Edits int `json:"-"`
}

// CallbackQuery is a press of an inline button.
type CallbackQuery struct {
	ID           string   `json:"id"`
	From         User     `json:"from"`
	Message      *Message `json:"message,omitempty"`
	ChatInstance string   `json:"chat_instance"`
	Data         string   `json:"data,omitempty"`
}

// Update is one entry of getUpdates.
type Update struct {
	UpdateID      int             `json:"update_id"`
	Message       *Message        `json:"message,omitempty"`
	EditedMessage *Message        `json:"edited_message,omitempty"`
	CallbackQuery *CallbackQuery  `json:"callback_query,omitempty"`
	MyChatMember  json.RawMessage `json:"my_chat_member,omitempty"`
}

// kind is the update's type, as allowed_updates names it.
func (u Update) kind() string {
	switch {
	case u.Message != nil:
		return "message"
	case u.EditedMessage != nil:
		return "edited_message"
	case u.CallbackQuery != nil:
		return "callback_query"
	case u.MyChatMember != nil:
		return "my_chat_member"
	}
	return ""
}

// File is what getFile returns.
type File struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int64  `json:"file_size,omitempty"`
	FilePath     string `json:"file_path,omitempty"`
}

// Command is a BotCommand.
type Command struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// Action is a sendChatAction call.
type Action struct {
	ChatID   int64
	ThreadID int
	Action   string
}

// Answer is an answerCallbackQuery call.
type Answer struct {
	ID        string
	Text      string
	ShowAlert bool
}

// Draft is a sendMessageDraft call.
type Draft struct {
	ChatID  int64
	DraftID int64
	Text    string
}
