package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/storetest"
)

// The benchmarks here are small enough for `go test -bench`; the
// million-message figures come from bench/store.

// benchMessages returns n generated messages in conversation order.
func benchMessages(corpus *storetest.Corpus, n int) []*session.Message {
	var msgs []*session.Message
	for len(msgs) < n {
		msgs = append(msgs, corpus.Turn()...)
	}
	return msgs[:n]
}

// benchSession opens a store with one session to append to.
func benchSession(b *testing.B) (*Store, *storetest.Corpus, string) {
	s := openTemp(b)
	b.Cleanup(func() { s.Close() })
	corpus := storetest.NewCorpus(7)
	sess := corpus.NewSession()
	if err := s.Create(context.Background(), sess); err != nil {
		b.Fatal(err)
	}
	return s, corpus, sess.ID
}

func benchmarkAppend(b *testing.B, batch int) {
	s, corpus, id := benchSession(b)
	msgs := benchMessages(corpus, 4096)
	ctx := context.Background()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		chunk := make([]*session.Message, batch)
		for j := range chunk {
			m := *msgs[i%len(msgs)]
			chunk[j] = &m
			i++
		}
		if err := s.Append(ctx, id, chunk...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkAppend is one message per transaction, as the agent appends
// a user message or a final answer.
func BenchmarkAppend(b *testing.B) { benchmarkAppend(b, 1) }

// BenchmarkAppendBatch10 is ten messages per transaction, as a tool
// round with its results or an import appends them.
func BenchmarkAppendBatch10(b *testing.B) { benchmarkAppend(b, 10) }

// BenchmarkAppendParallel has goroutines append to their own sessions at
// once, the daemon's case: they queue on the one writer connection.
func BenchmarkAppendParallel(b *testing.B) {
	s, corpus, _ := benchSession(b)
	msgs := benchMessages(corpus, 4096)
	ctx := context.Background()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		sess := &session.Session{Source: "bench"}
		if err := s.Create(ctx, sess); err != nil {
			b.Error(err)
			return
		}
		i := 0
		for pb.Next() {
			m := *msgs[i%len(msgs)]
			i++
			if err := s.Append(ctx, sess.ID, &m); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// fill stores about n generated messages in sessions of about 40, as
// history looks.
func fill(b *testing.B, s *Store, corpus *storetest.Corpus, n int) {
	ctx := context.Background()
	for done := 0; done < n; {
		sess := corpus.NewSession()
		if err := s.Create(ctx, sess); err != nil {
			b.Fatal(err)
		}
		msgs := benchMessages(corpus, 40)
		if err := s.Append(ctx, sess.ID, msgs...); err != nil {
			b.Fatal(err)
		}
		done += len(msgs)
	}
}

// BenchmarkSearch searches 20,000 generated messages: a word, a Chinese
// phrase, a 2-character Chinese word, a substring and a common word.
func BenchmarkSearch(b *testing.B) {
	s, corpus, _ := benchSession(b)
	fill(b, s, corpus, 20_000)
	ctx := context.Background()
	for _, q := range []string{"kubernetes", "性能优化", "迁移", "ubernete", "error"} {
		b.Run(fmt.Sprintf("q=%s", q), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Search(ctx, q, session.SearchOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchWhileAppending searches while another goroutine appends
// without pause, and reports both rates: with reads on their own
// connections, neither waits for the other (on two cores they still
// share the CPU).
func BenchmarkSearchWhileAppending(b *testing.B) {
	s, corpus, id := benchSession(b)
	ctx := context.Background()
	fill(b, s, corpus, 5000)
	msgs := benchMessages(corpus, 5000)
	stop := make(chan struct{})
	done := make(chan struct{})
	var appended int
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			m := *msgs[i%len(msgs)]
			if err := s.Append(ctx, id, &m); err != nil {
				b.Error(err)
				return
			}
			appended++
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Search(ctx, "kubernetes", session.SearchOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	close(stop)
	<-done
	b.ReportMetric(float64(appended)/b.Elapsed().Seconds(), "appends/s")
}
