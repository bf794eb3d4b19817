package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// BenchmarkReplicasThroughput measures turns per second through the
// API of 1, 2 and 3 replicas on one PostgreSQL database behind a
// round-robin balancer, against a model that takes 100 ms a call, with
// 48 clients each holding its own conversation. Numbers only:
//
//	go test -run '^$' -bench ReplicasThroughput -benchtime 1200x ./cmd/hermes
//
// Each size starts its replicas afresh, so a fixed count (1200x) runs
// each once.
func BenchmarkReplicasThroughput(b *testing.B) {
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) { benchReplicas(b, n) })
	}
}

func benchReplicas(b *testing.B, n int) {
	dsn := pgtest.NewDatabase(b)
	srv := llmtest.New(b)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "answer to: " + r.LastUserText(), Delay: 100 * time.Millisecond}
	})
	const key = "k-bench-0123456789"
	config := `model: {base_url: "` + srv.URL() + `/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
storage: {driver: postgres, dsn: '` + dsn + `'}
api: {enabled: true, max_concurrent_runs: 64}
`
	rs := newReplicaSet(b, n, config, key)
	for i := range n {
		if err := rs.start(i); err != nil {
			b.Fatal(err)
		}
	}
	lb := roundRobin(b, rs.addrs)
	const clients = 48
	var turns atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			sid := "new"
			for i := 0; int(turns.Load()) < b.N; i++ {
				idem := fmt.Sprintf("b%d-%d", c, i)
				body := fmt.Sprintf(`{"model":"hermes","messages":[{"role":"user","content":"client %d message %d"}]}`, c, i)
				got, _, status, err := chatThrough(lb, key, sid, idem, []byte(body))
				if err != nil || status != 200 {
					b.Errorf("client %d: %d %v", c, status, err)
					return
				}
				sid = got
				turns.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(turns.Load())/elapsed.Seconds(), "turns/s")
}
