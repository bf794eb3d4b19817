//go:build unix

package terminal

import (
	"context"
	"encoding/json"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// BenchmarkEcho measures one `echo` call in the session's persistent
// shell and in a bash of its own, with the CPU it costs hermes and bash
// (a persistent shell is counted once the terminal closes it).
func BenchmarkEcho(b *testing.B) {
	for _, perCall := range []bool{false, true} {
		name := "persistent"
		if perCall {
			name = "per-call"
		}
		b.Run(name, func(b *testing.B) {
			tr := New(Options{Fallback: approveAll{}, SpawnPerCall: perCall})
			if err := tr.Available(); err != nil {
				b.Skip(err)
			}
			ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "bench", Workdir: b.TempDir()})
			args, _ := json.Marshal(map[string]string{"command": "echo step"})
			if _, err := tr.Call(ctx, args); err != nil { // the shell starts outside the loop
				b.Fatal(err)
			}
			self0, children0 := cpuTime()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tr.Call(ctx, args); err != nil {
					b.Fatal(err)
				}
			}
			tr.Close()
			self1, children1 := cpuTime()
			perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
			b.ReportMetric(perOp(self1-self0), "hermes-cpu-µs/op")
			b.ReportMetric(perOp(children1-children0), "bash-cpu-µs/op")
		})
	}
}

// cpuTime returns the CPU time of this process and that of its
// children that ended.
func cpuTime() (self, children time.Duration) {
	var s, c syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(s.Utime) + tv(s.Stime), tv(c.Utime) + tv(c.Stime)
}

// BenchmarkAbsorb measures reading one report of a shell holding this
// process's environment plus a few variables and a function, as every
// call does; $_ changes every time, so declare -p never repeats.
func BenchmarkAbsorb(b *testing.B) {
	tr := newTerminal(b, Options{})
	sh, err := startShell(tr, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer sh.close()
	timer := time.NewTimer(time.Minute)
	rep, how := sh.exchange(context.Background(), shellCall{fifo: "/dev/null", code: "X=1; Y=(a b); f() { :; }"}, timer.C)
	if how != answered {
		b.Fatal(how)
	}
	b.ReportMetric(float64(len(rep.vars)+len(rep.funcs)+len(rep.traps)+len(rep.builtins)), "report-bytes")
	b.ReportAllocs()
	vars := rep.vars
	for i := 0; b.Loop(); i++ {
		rep.vars = vars + "\ndeclare -- _=\"" + strconv.Itoa(i) + "\""
		sh.absorb(rep)
	}
}
