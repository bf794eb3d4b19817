package main

import (
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// settledMetrics scrapes base/metrics, without a key, until sample has
// value (for up to 20 s), and returns that scrape.
func settledMetrics(t *testing.T, base, sample, value string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, got := scrapeMetrics(t, base, "")
		if status == http.StatusOK && got[sample] == value {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/metrics: %d, %s = %q, want %q", base, status, sample, got[sample], value)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// freePort returns a loopback address nothing listens on now.
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Chat messages in and out are counted by platform, and a reply the
// platform refuses for good (the user blocked the bot) counts as a send
// failure.
func TestGatewayMetrics(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "First answer."}, llmtest.Reply{Text: "Lost answer."})
	addr := freePort(t)
	gatewayServe(t, h, tg, srv, "observability: {metrics_listen: \""+addr+"\"}\n")
	tg.UserMessage(telegramtest.Incoming{Text: "one"})
	waitText(t, tg, 42, "First answer.")
	tg.Block(42)
	tg.UserMessage(telegramtest.Incoming{Text: "two"})
	got := settledMetrics(t, "http://"+addr, `hermes_turns_total{source="telegram",outcome="done"}`, "2")
	if n, _ := strconv.Atoi(got[`hermes_gateway_send_failures_total{platform="telegram"}`]); n < 1 {
		t.Errorf("send failures = %d, want the reply the platform refused", n)
	}
	if got[`hermes_gateway_messages_total{platform="telegram",direction="in"}`] != "2" {
		t.Errorf("messages in = %q, want 2", got[`hermes_gateway_messages_total{platform="telegram",direction="in"}`])
	}
	if got[`hermes_gateway_messages_total{platform="telegram",direction="out"}`] != "1" {
		t.Errorf("messages out = %q, want the 1 reply delivered", got[`hermes_gateway_messages_total{platform="telegram",direction="out"}`])
	}
	if got[`hermes_queue_depth{queue="outbound"}`] != "0" {
		t.Errorf("outbound queue = %q, want 0", got[`hermes_queue_depth{queue="outbound"}`])
	}
}
