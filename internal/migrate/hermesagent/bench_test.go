package hermesagent

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkImportSessions imports a Hermes state.db of 2,000 sessions
// (1,000 conversations, each compressed once) and 12,000 messages with
// tool calls into a fresh store, reporting messages a second.
//
//	go test -run '^$' -bench ImportSessions -benchtime 3x ./migrate/hermesagent
func BenchmarkImportSessions(b *testing.B) {
	h := newHermesHome(b)
	for k := range 1000 {
		root := fmt.Sprintf("20260718_%06d_r%05d", k, k)
		h.conversation(b, root, "", 2, k%3 == 0)
		h.conversation(b, fmt.Sprintf("20260718_%06d_s%05d", k, k), root, 1, false)
	}
	ctx := context.Background()
	var msgs int
	var secs float64
	for b.Loop() {
		rep, err := ImportSessions(ctx, openStore(b), h.path, false)
		if err != nil {
			b.Fatal(err)
		}
		msgs += rep.Messages
		secs += rep.Took.Seconds()
	}
	b.ReportMetric(float64(msgs)/secs, "messages/s")
	b.ReportMetric(0, "ns/op")
}
