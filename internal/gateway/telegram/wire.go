package telegram

// The Bot API objects the adapter reads, with the fields it uses.

type tgUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

type tgChat struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

type tgEntity struct {
	Type   string  `json:"type"`
	Offset int     `json:"offset"`
	Length int     `json:"length"`
	User   *tgUser `json:"user"`
}

type tgFile struct {
	FileID   string `json:"file_id"`
	FileName string `json:"file_name"`
	MimeType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	FilePath string `json:"file_path"`
}

type tgMessage struct {
	MessageID       int        `json:"message_id"`
	MessageThreadID int        `json:"message_thread_id"`
	IsTopicMessage  bool       `json:"is_topic_message"`
	From            *tgUser    `json:"from"`
	Chat            tgChat     `json:"chat"`
	Text            string     `json:"text"`
	Entities        []tgEntity `json:"entities"`
	Caption         string     `json:"caption"`
	CaptionEntities []tgEntity `json:"caption_entities"`
	Photo           []tgFile   `json:"photo"`
	Document        *tgFile    `json:"document"`
	Voice           *tgFile    `json:"voice"`
	ReplyToMessage  *tgMessage `json:"reply_to_message"`
}

type tgCallback struct {
	ID      string     `json:"id"`
	From    tgUser     `json:"from"`
	Message *tgMessage `json:"message"`
	Data    string     `json:"data"`
}

type tgUpdate struct {
	UpdateID      int         `json:"update_id"`
	Message       *tgMessage  `json:"message"`
	CallbackQuery *tgCallback `json:"callback_query"`
}
