package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
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
	cpu0 := rs.cpu()
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
	// The replicas' own CPU per turn: what a replica on a machine of its
	// own would spend, so how far replicas scale once PostgreSQL, the
	// model and the clients are elsewhere.
	b.ReportMetric(float64((rs.cpu()-cpu0).Microseconds())/1000/float64(turns.Load()), "hermes-cpu-ms/turn")
}

// cpu is the CPU time the replicas running now have used, from
// /proc/PID/stat (utime and stime, in clock ticks of 10 ms).
func (rs *replicaSet) cpu() time.Duration {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var total time.Duration
	for _, cmd := range rs.procs {
		if cmd == nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
		if err != nil {
			continue
		}
		// The fields after the command's name, which is in parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			total += time.Duration(u+s) * 10 * time.Millisecond
		}
	}
	return total
}
