package slack

import "testing"

// Over Socket Mode the app has one connection, so replicas elect who
// holds it; over the Events API every replica's listener is reached.
func TestCapsOneConsumer(t *testing.T) {
	socket, err := New(Options{BotToken: "xoxb-1-2-abc", AppToken: "xapp-1-A1-2-def"})
	if err != nil {
		t.Fatal(err)
	}
	events, err := New(Options{BotToken: "xoxb-1-2-abc", SigningSecret: "8f742231b10e8888abcd99yyyzzz85a5"})
	if err != nil {
		t.Fatal(err)
	}
	if !socket.Caps().OneConsumer || events.Caps().OneConsumer {
		t.Fatalf("OneConsumer over Socket Mode %v, over the Events API %v; want true, false", socket.Caps().OneConsumer, events.Caps().OneConsumer)
	}
}
