package facts

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// Word lists for generated facts: enough variety that terms have
// realistic document frequencies.
var (
	benchEN = strings.Fields(`deploy release build test lint format review merge branch
		commit docker kubernetes postgres redis kafka nginx terraform ansible grafana
		prometheus python golang rust typescript react vue django rails spring
		report invoice budget forecast meeting calendar email slack jira notion
		monday tuesday weekly monthly nightly quarterly morning evening
		laptop server cluster staging production backup archive migration schema
		chinese english german french japanese concise detailed formal casual`)
	benchZH = []string{"部署", "发布", "测试", "数据库", "备份", "迁移", "报表", "周报", "月报",
		"预算", "会议", "邮件", "服务器", "集群", "生产环境", "测试环境", "日志", "监控", "告警",
		"中文", "英文", "简洁", "详细", "每周一", "每天", "凌晨", "审批", "代码评审", "文档", "脚本"}
)

// benchStore is a store of n generated facts, a third of them Chinese,
// inserted directly (Add's duplicate check would make setup quadratic).
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s := openOn(b, "sqlite", Options{})
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(ws []string) string { return ws[r.IntN(len(ws))] }
	err := s.writeTx(context.Background(), "seed", func(tx *sql.Tx) error {
		for i := range n {
			var subject, content string
			if i%3 == 2 {
				subject = pick(benchZH)
				content = fmt.Sprintf("用户的%s在%s之前需要%s和%s，编号%d。", subject, pick(benchZH), pick(benchZH), pick(benchZH), i)
			} else {
				subject = pick(benchEN)
				content = fmt.Sprintf("The user's %s %s uses %s with %s on %s, item %d.",
					subject, pick(benchEN), pick(benchEN), pick(benchEN), pick(benchEN), i)
			}
			if _, err := tx.Exec(`INSERT INTO facts (kind, subject, content, norm, has_cjk, created_at)
VALUES ('fact', ?, ?, ?, ?, ?)`, subject, content, normalize(content), hasCJK(content), i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSearch searches 10,000 facts. The figures are in the report
// of the package's tests (go test -bench Search ./memory/facts).
func BenchmarkSearch(b *testing.B) {
	s := benchStore(b, 10_000)
	ctx := context.Background()
	for _, q := range []struct{ name, text string }{
		{"english", "deploy the kubernetes cluster"},
		{"chinese", "部署到生产环境之前需要审批吗"},
		{"message", "Can you write the weekly report for the staging cluster migration and email it in Chinese? 顺便检查一下数据库备份。"},
		{"nomatch", "what is 2+2"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Search(ctx, q.text, 5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAdd adds one new fact to a store of 10,000, duplicate check
// included.
func BenchmarkAdd(b *testing.B) {
	s := benchStore(b, 10_000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Add(ctx, []Fact{{Kind: KindFact, Content: fmt.Sprintf("Benchmark fact number %d is new.", i)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecallLatency is what recall adds before a session's first
// model call, at 10,000 facts: the recall set's 200 first messages
// against its 60 facts among 9,940 generated ones, reported as the p50
// and p99 of one Recall (search, and marking what it returns used). By
// words alone, and hybrid with 1,536-dimension vectors (the size of
// OpenAI's text-embedding-3-small) from an embedder in the process: the
// time an embedding server takes to answer is not hermes's, and is not
// in the figure.
//
//	go test -run '^$' -bench RecallLatency -benchtime 3x ./memory/facts
func BenchmarkRecallLatency(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  Options
	}{
		{"words", Options{}},
		{"hybrid-1536", Options{Embed: wideEmbed, EmbedModel: "bench/wide"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			set := loadRecallSet(b)
			s := benchStore(b, 10_000-len(set.Facts))
			s = New(s.db, bc.opt)
			if _, err := s.Backfill(context.Background()); err != nil {
				b.Fatal(err)
			}
			var fs []Fact
			for _, f := range set.Facts {
				fs = append(fs, Fact{Kind: Kind(f.Kind), Subject: f.Subject, Content: f.Content})
			}
			mustAdd(b, s, fs...)
			ctx := context.Background()
			if _, err := Recall(ctx, s, "warm the vector cache", 5); err != nil {
				b.Fatal(err)
			}
			var took []time.Duration
			for b.Loop() {
				for _, m := range set.Messages {
					start := time.Now()
					if _, err := Recall(ctx, s, m.Text, 5); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
			}
			slices.Sort(took)
			at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
			b.ReportMetric(at(0.5), "p50-ms")
			b.ReportMetric(at(0.99), "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// wideEmbed gives each text a 1,536-dimension vector drawn from its hash:
// the cost of a real model's vectors, none of their meaning.
func wideEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		r := rand.New(rand.NewPCG(h.Sum64(), 7))
		v := make([]float32, 1536)
		for d := range v {
			v[d] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out, nil
}
