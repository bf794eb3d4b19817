package discordtest

// The objects of the Discord API the server keeps and sends, with the
// fields hermes uses.

// User is a Discord user.
type User struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name,omitempty"`
	Bot        bool   `json:"bot,omitempty"`
}

// Attachment is a file on a message.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type,omitempty"`
	Size        int64  `json:"size"`
	URL         string `json:"url"`
}

// Button is a button component (type 2).
type Button struct {
	Type     int    `json:"type"`
	Style    int    `json:"style"`
	Label    string `json:"label"`
	CustomID string `json:"custom_id"`
}

// Row is an action row (type 1) of buttons.
type Row struct {
	Type       int      `json:"type"`
	Components []Button `json:"components"`
}

// Reference is a message_reference: the message a reply answers.
type Reference struct {
	MessageID       string `json:"message_id"`
	FailIfNotExists *bool  `json:"fail_if_not_exists,omitempty"`
}

// AllowedMentions is what a message may ping.
type AllowedMentions struct {
	Parse []string `json:"parse"`
}

// Message is a message in a channel.
type Message struct {
	ID                string       `json:"id"`
	Type              int          `json:"type"`
	ChannelID         string       `json:"channel_id"`
	GuildID           string       `json:"guild_id,omitempty"`
	Author            User         `json:"author"`
	Content           string       `json:"content"`
	Mentions          []User       `json:"mentions"`
	Attachments       []Attachment `json:"attachments"`
	Components        []Row        `json:"components,omitempty"`
	MessageReference  *Reference   `json:"message_reference,omitempty"`
	ReferencedMessage *Message     `json:"referenced_message,omitempty"`
	// AllowedMentions is what the bot sent with the message (not part of
	// Discord's message object; kept for tests).
	AllowedMentions *AllowedMentions `json:"-"`
	// Edits counts the edits the bot made.
	Edits int `json:"-"`
}

// Callback is an answer to an interaction (POST
// /interactions/{id}/{token}/callback).
type Callback struct {
	InteractionID string
	Type          int
	Content       string
}

// Followup is a message sent through an interaction's webhook.
type Followup struct {
	InteractionID string
	Content       string
	Flags         int
}
