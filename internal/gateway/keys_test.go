package gateway

import "testing"

// TestSessionKeyFormat: plain ids give Hermes's keys.
func TestSessionKeyFormat(t *testing.T) {
	bob := User{ID: "42", Name: "Bob"}
	for _, c := range []struct {
		chat    Chat
		perUser bool
		want    string
	}{
		{Chat{ID: "42", Type: DM}, true, "agent:main:telegram:dm:42"},
		{Chat{ID: "42", Type: DM, Thread: "7"}, true, "agent:main:telegram:dm:42:7"},
		{Chat{ID: "-100", Type: Group}, true, "agent:main:telegram:group:-100:42"},
		{Chat{ID: "-100", Type: Group}, false, "agent:main:telegram:group:-100"},
		{Chat{ID: "-100", Type: Group, Thread: "7"}, true, "agent:main:telegram:thread:-100:7"},
		{Chat{ID: "-100", Type: Group, Thread: "7"}, false, "agent:main:telegram:thread:-100:7"},
	} {
		if got := SessionKey("telegram", c.chat, bob, c.perUser); got != c.want {
			t.Errorf("SessionKey(%+v, perUser=%v) = %q, want %q", c.chat, c.perUser, got, c.want)
		}
	}
}

// TestSessionKeyEscapes: ids with separators are escaped, so an email
// address or a Message-ID keeps its characters readable and a colon
// cannot move part of one id into the next.
func TestSessionKeyEscapes(t *testing.T) {
	got := SessionKey("email", Chat{ID: "<a:b%c@x>", Type: Group}, User{ID: "bob@x\n"}, true)
	if want := "agent:main:email:group:<a%3Ab%25c@x>:bob@x%0A"; got != want {
		t.Errorf("SessionKey = %q, want %q", got, want)
	}
}

// TestSessionKeyInjective: of every combination of awkward ids, two that
// are different conversations never share a key. What tells conversations
// apart: the platform, DM or group, the chat, the thread, and the user in
// a group without a thread when perUserInGroups.
func TestSessionKeyInjective(t *testing.T) {
	ids := []string{"", "a", "b", ":", "a:", ":a", "a:b", "%", "%3A", "a%3Ab", "a:b:c", "thread", "group:a", "\n", "%0A"}
	type conv struct {
		platform string
		typ      ChatType
		chat     string
		thread   string
		user     string
	}
	seen := map[string]conv{}
	for _, platform := range []string{"telegram", "tele:gram", "tele"} {
		for _, typ := range []ChatType{DM, Group} {
			for _, chat := range ids {
				for _, thread := range ids {
					for _, user := range ids {
						for _, perUser := range []bool{true, false} {
							c := conv{platform, typ, chat, thread, user}
							if typ == DM || thread != "" || !perUser {
								c.user = ""
							}
							key := SessionKey(platform, Chat{ID: chat, Type: typ, Thread: thread}, User{ID: user}, perUser)
							if prev, ok := seen[key]; ok && prev != c {
								t.Fatalf("%+v and %+v share the key %q", prev, c, key)
							}
							seen[key] = c
						}
					}
				}
			}
		}
	}
	if len(seen) < 1000 {
		t.Errorf("only %d keys: the combinations did not run", len(seen))
	}
}

// TestSessionKeyAttacks: the collisions unescaped keys would have.
func TestSessionKeyAttacks(t *testing.T) {
	for _, pair := range [][2]string{
		// A group member whose id holds a colon against another group.
		{SessionKey("t", Chat{ID: "g", Type: Group}, User{ID: "x:y"}, true), SessionKey("t", Chat{ID: "g:x", Type: Group}, User{ID: "y"}, true)},
		// A DM chat id with a colon against a thread of another DM.
		{SessionKey("t", Chat{ID: "1:2", Type: DM}, User{}, true), SessionKey("t", Chat{ID: "1", Type: DM, Thread: "2"}, User{}, true)},
		// A user of a group against a thread of the same group.
		{SessionKey("t", Chat{ID: "g", Type: Group}, User{ID: "7"}, true), SessionKey("t", Chat{ID: "g", Type: Group, Thread: "7"}, User{ID: "8"}, true)},
		// An escaped-looking id against the id it looks like.
		{SessionKey("t", Chat{ID: "a%3Ab", Type: DM}, User{}, true), SessionKey("t", Chat{ID: "a:b", Type: DM}, User{}, true)},
	} {
		if pair[0] == pair[1] {
			t.Errorf("two conversations share the key %q", pair[0])
		}
	}
}
