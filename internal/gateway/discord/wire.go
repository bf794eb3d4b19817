package discord

import "encoding/json"

// The Gateway's opcodes.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opResume         = 6
	opReconnect      = 7
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
)

// payload is every Gateway message.
type payload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s,omitempty"`
	T  string          `json:"t,omitempty"`
}

// The objects the adapter reads, with the fields it uses.

type dcUser struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
	Bot        bool   `json:"bot"`
}

type dcAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	URL         string `json:"url"`
}

type dcMessage struct {
	ID                string         `json:"id"`
	Type              int            `json:"type"`
	ChannelID         string         `json:"channel_id"`
	GuildID           string         `json:"guild_id"`
	Author            dcUser         `json:"author"`
	Content           string         `json:"content"`
	Mentions          []dcUser       `json:"mentions"`
	Attachments       []dcAttachment `json:"attachments"`
	ReferencedMessage *dcMessage     `json:"referenced_message"`
}

type dcInteraction struct {
	ID            string `json:"id"`
	ApplicationID string `json:"application_id"`
	Type          int    `json:"type"`
	Token         string `json:"token"`
	GuildID       string `json:"guild_id"`
	ChannelID     string `json:"channel_id"`
	Data          struct {
		CustomID      string `json:"custom_id"`
		ComponentType int    `json:"component_type"`
	} `json:"data"`
	Member *struct {
		User dcUser `json:"user"`
	} `json:"member"`
	User    *dcUser    `json:"user"`
	Message *dcMessage `json:"message"`
}

type dcReady struct {
	SessionID        string `json:"session_id"`
	ResumeGatewayURL string `json:"resume_gateway_url"`
	User             dcUser `json:"user"`
	Application      struct {
		ID string `json:"id"`
	} `json:"application"`
}
