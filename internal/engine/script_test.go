//go:build unix

package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// scriptRig is an engine that runs no-agent jobs, delivering to the local
// file of home, with tool results redacted of one known secret.
func scriptRig(t *testing.T, env func() []string) (*engine.Engine, string) {
	t.Helper()
	st, _ := openStore(t)
	home := t.TempDir()
	e := engine.New(engine.Options{
		Store: st,
		Tools: engine.Tools{Registry: tool.NewRegistry(),
			Redact: redact.New(map[string]string{"OPENAI_API_KEY": "sk-live-0123456789abcdef"}).Redact},
		Jobs: engine.Jobs{Notifier: notify.New(notify.Config{Home: home}), ScriptEnv: env},
	})
	t.Cleanup(e.Close)
	return e, home
}

// A script sees no secret of hermes's environment: by default every
// variable whose name looks secret is gone; with ScriptEnv, exactly the
// environment it gives.
func TestJobScriptEnvironment(t *testing.T) {
	t.Setenv("HERMES_TEST_DEPLOY_TOKEN", "tok-0123456789")
	t.Setenv("HERMES_TEST_PLAIN", "plain")
	job := cron.Job{Name: "env", Spec: cron.Spec{NoAgent: true,
		Script: `echo "${HERMES_TEST_DEPLOY_TOKEN:-unset} ${HERMES_TEST_PLAIN:-unset} ${GIVEN:-unset}"`}}

	e, _ := scriptRig(t, nil)
	res := e.RunJob(context.Background(), job, time.Now())
	if res.Err != nil || res.Output != "unset plain unset" {
		t.Errorf("default environment: %+v", res)
	}
	e, _ = scriptRig(t, func() []string { return []string{"GIVEN=yes", "PATH=" + os.Getenv("PATH")} })
	res = e.RunJob(context.Background(), job, time.Now())
	if res.Err != nil || res.Output != "unset unset yes" {
		t.Errorf("ScriptEnv's environment: %+v", res)
	}
}

// What a script prints reaches the run, the delivery and the log only
// redacted, whether it succeeds or fails.
func TestJobScriptOutputRedacted(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	for _, tc := range []struct{ name, script string }{
		{"ok", "echo key=" + secret},
		{"failed", "echo key=" + secret + "; echo also " + secret + " >&2; exit 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, home := scriptRig(t, nil)
			job := cron.Job{Name: "leak", Spec: cron.Spec{NoAgent: true, Script: tc.script, Deliver: []string{"local"}}}
			res := e.RunJob(context.Background(), job, time.Now())
			got := res.Output
			if res.Err != nil {
				got += " " + res.Err.Error()
			}
			got += " " + delivered(t, home, "leak")
			if strings.Contains(got, secret) || !strings.Contains(got, "[REDACTED:OPENAI_API_KEY]") {
				t.Errorf("the run and its delivery hold %q", got)
			}
		})
	}
}

// A job run from inside a turn (the cronjob tool's "run") asks the turn's
// approver about its script as the terminal would; denied, it does not run.
func TestJobScriptFromATurnIsApproved(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	job := cron.Job{Name: "touch", Spec: cron.Spec{NoAgent: true, Script: "touch " + marker}}
	e, _ := scriptRig(t, nil)

	var asked []string
	deny := approverFunc(func(cmd string) error { asked = append(asked, cmd); return errors.New("the user said no") })
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{Approver: deny})
	res := e.RunJob(ctx, job, time.Now())
	if res.Err == nil || !strings.Contains(res.Err.Error(), "the user said no") {
		t.Errorf("a denied script: %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the denied script ran")
	}
	if len(asked) != 1 || asked[0] != "touch "+marker {
		t.Errorf("asked about %q, want the script", asked)
	}
	allow := approverFunc(func(cmd string) error { asked = append(asked, cmd); return nil })
	ctx = tool.WithInvocation(context.Background(), tool.Invocation{Approver: allow})
	if res := e.RunJob(ctx, job, time.Now()); res.Err != nil {
		t.Fatalf("an approved script: %+v", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved script did not run: %v", err)
	}
	// A secret in the script (config.yaml's ${VAR} expands to it) is not
	// shown to whoever approves.
	job.Script = "curl -H 'Authorization: sk-live-0123456789abcdef' https://example.com"
	e.RunJob(tool.WithInvocation(context.Background(), tool.Invocation{Approver: deny}), job, time.Now())
	if q := asked[len(asked)-1]; strings.Contains(q, "sk-live") || !strings.Contains(q, "[REDACTED:OPENAI_API_KEY]") {
		t.Errorf("asked about %q", q)
	}
}

type approverFunc func(string) error

func (f approverFunc) ApproveCommand(_ context.Context, cmd string) error { return f(cmd) }

// Everything a script started dies with the run: when the run is stopped,
// and when the script ends leaving something behind.
func TestJobScriptKilledWithTheRun(t *testing.T) {
	e, _ := scriptRig(t, nil)
	fifo := procgrouptest.NewFifo(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan cron.RunResult, 1)
	go func() {
		done <- e.RunJob(ctx, cron.Job{Name: "hang", Spec: cron.Spec{NoAgent: true,
			Script: "trap '' TERM; sleep 300 & echo $$ > " + fifo + "; wait"}}, time.Now())
	}()
	guard := procgrouptest.ReadPid(t, fifo, 20*time.Second)
	members := procgrouptest.Members(t, procgrouptest.Group(t, guard))
	cancel()
	res := <-done
	if res.Err == nil || !strings.Contains(res.Err.Error(), "stopped and killed") {
		t.Errorf("a stopped run: %+v", res)
	}
	procgrouptest.WaitGone(t, members, 10*time.Second)

	res = e.RunJob(context.Background(), cron.Job{Name: "leave", Spec: cron.Spec{NoAgent: true,
		Script: "sleep 300 >/dev/null 2>&1 & echo $!"}}, time.Now())
	left, err := strconv.Atoi(res.Output)
	if err != nil || res.Err != nil {
		t.Fatalf("result %+v", res)
	}
	procgrouptest.WaitGone(t, []int{left}, 5*time.Second)
}
