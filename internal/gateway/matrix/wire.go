package matrix

import "encoding/json"

// syncResponse is the part of a /sync answer the adapter reads.
type syncResponse struct {
	NextBatch string `json:"next_batch"`
	Rooms     struct {
		Join   map[string]joinedRoom  `json:"join"`
		Invite map[string]invitedRoom `json:"invite"`
	} `json:"rooms"`
}

// joinedRoom is a room the bot is in, as /sync tells what changed.
type joinedRoom struct {
	Summary struct {
		Joined *int `json:"m.joined_member_count"`
	} `json:"summary"`
	State struct {
		Events []event `json:"events"`
	} `json:"state"`
	Timeline struct {
		Events    []event `json:"events"`
		Limited   bool    `json:"limited"`
		PrevBatch string  `json:"prev_batch"`
	} `json:"timeline"`
}

// invitedRoom is a room the bot was invited to; its state is stripped
// to a few events, among them the bot's own m.room.member invite.
type invitedRoom struct {
	InviteState struct {
		Events []event `json:"events"`
	} `json:"invite_state"`
}

// event is a room event.
type event struct {
	Type     string          `json:"type"`
	EventID  string          `json:"event_id"`
	Sender   string          `json:"sender"`
	StateKey *string         `json:"state_key"`
	Content  json.RawMessage `json:"content"`
	// OriginTS is when the sender's server took the event, in Unix
	// milliseconds.
	OriginTS int64 `json:"origin_server_ts"`
}

// messageContent is an m.room.message's content.
type messageContent struct {
	MsgType   string `json:"msgtype"`
	Body      string `json:"body"`
	RelatesTo *struct {
		RelType   string `json:"rel_type"`
		EventID   string `json:"event_id"`
		InReplyTo *struct {
			EventID string `json:"event_id"`
		} `json:"m.in_reply_to"`
	} `json:"m.relates_to"`
	Mentions *struct {
		UserIDs []string `json:"user_ids"`
	} `json:"m.mentions"`
}

// membership is an m.room.member's content.
type membership struct {
	Membership string `json:"membership"`
}

// syncFilter asks for room timelines large enough that a busy room's
// messages do not fall into a gap, and leaves out what the gateway does
// not use (presence, typing, account data).
const syncFilter = `{"room":{"timeline":{"limit":100},"ephemeral":{"not_types":["*"]},"account_data":{"not_types":["*"]}},"presence":{"not_types":["*"]},"account_data":{"not_types":["*"]}}`
