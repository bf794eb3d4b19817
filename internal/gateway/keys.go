package gateway

import (
	"strings"
)

// SessionKey is the key of the session a message on platform belongs to,
// built as Hermes Agent builds it (gateway/session.py, build_session_key):
//
//	if source.chat_type == "dm":
//	    if source.chat_id:
//	        if source.thread_id:
//	            return f"agent:main:{platform}:dm:{source.chat_id}:{source.thread_id}"
//	        return f"agent:main:{platform}:dm:{source.chat_id}"
//	...
//	key_parts = ["agent:main", platform, source.chat_type]
//	if source.chat_id: key_parts.append(source.chat_id)
//	if source.thread_id: key_parts.append(source.thread_id)
//	isolate_user = group_sessions_per_user
//	if source.thread_id and not thread_sessions_per_user: isolate_user = False
//	if isolate_user and participant_id: key_parts.append(str(participant_id))
//	return ":".join(key_parts)
//
// So a direct message's key is agent:main:<platform>:dm:<chat>[:<thread>];
// a group's is agent:main:<platform>:group:<chat>, with :<user> when
// perUserInGroups (Hermes's group_sessions_per_user, on by default); and
// a thread in a group is shared by everyone in it, as Hermes shares
// threads unless thread_sessions_per_user.
//
// Two things differ, so that two different chats or users never share a
// key, and with it a conversation: every id is escaped (% and : and
// control characters as %XX), because ids may contain the separator; and
// a group's thread is keyed under Hermes's chat type "thread"
// (agent:main:<platform>:thread:<chat>:<thread>), because in Hermes
// group:<chat>:<x> is both user x of the group and its thread x.
func SessionKey(platform string, chat Chat, user User, perUserInGroups bool) string {
	var b strings.Builder
	b.WriteString("agent:main:")
	escapeTo(&b, platform)
	switch {
	case chat.Type == DM:
		b.WriteString(":dm:")
		escapeTo(&b, chat.ID)
		if chat.Thread != "" {
			b.WriteByte(':')
			escapeTo(&b, chat.Thread)
		}
	case chat.Thread != "":
		b.WriteString(":thread:")
		escapeTo(&b, chat.ID)
		b.WriteByte(':')
		escapeTo(&b, chat.Thread)
	default:
		b.WriteString(":group:")
		escapeTo(&b, chat.ID)
		if perUserInGroups && user.ID != "" {
			b.WriteByte(':')
			escapeTo(&b, user.ID)
		}
	}
	return b.String()
}

// escapeTo writes id to b with %, : and the control characters as %XX,
// so the escaped id holds no separator and tells apart every id.
func escapeTo(b *strings.Builder, id string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '%' || c == ':' || c < 0x20 || c == 0x7f {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
}
