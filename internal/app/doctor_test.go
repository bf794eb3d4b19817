package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// doctorReport runs the doctor's checks over home, offline or not.
func doctorReport(t *testing.T, home string, o DoctorOptions) doctor.Report {
	t.Helper()
	l, err := config.Load(loadOptions(home))
	if l == nil {
		t.Fatal(err)
	}
	return doctor.Run(context.Background(), DoctorChecks(l, err, o), DoctorRedactor(l))
}

func findResult(t *testing.T, rep doctor.Report, name string) doctor.Result {
	t.Helper()
	for _, r := range rep.Checks {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no result %q in %+v", name, rep.Checks)
	return doctor.Result{}
}

// A key written inline in config.yaml is a secret too: a provider that
// quotes it back in its error does not put it in the report.
func TestDoctorRedactsInlineKeyQuotedBack(t *testing.T) {
	const key = "correct-horse-battery-staple-42"
	srv := llmtest.New(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Message: "bad key " + key}}
	})
	home := t.TempDir()
	writeConfig(t, home, "model: {base_url: \""+srv.URL()+"/v1\", default: m, api_mode: chat_completions, api_key: "+key+"}\n")
	rep := doctorReport(t, home, DoctorOptions{})
	r := findResult(t, rep, "provider")
	if r.Status != doctor.Fail || !strings.Contains(r.Finding, "bad key") {
		t.Errorf("provider: %+v", r)
	}
	for _, c := range rep.Checks {
		if strings.Contains(c.Finding+c.Fix, key[3:len(key)-4]) {
			t.Errorf("%s shows the key: %q", c.Name, c.Finding)
		}
	}
}

// Each configuration message is fixed in the file and at the line it
// names.
func TestEditAt(t *testing.T) {
	p := config.PathsFor("/h")
	for msg, want := range map[string]string{
		`config.yaml:7: unknown key "x"`: "${EDITOR:-vi} +7 /h/config.yaml",
		`.env:3: line is not NAME=value`: "${EDITOR:-vi} +3 /h/.env",
		`config.yaml: cannot be read`:    "${EDITOR:-vi} /h/config.yaml",
		`provider "x" is not accepted`:   "${EDITOR:-vi} /h/config.yaml",
	} {
		if got := editAt(p, msg); got != want {
			t.Errorf("editAt(%q) = %q, want %q", msg, got, want)
		}
	}
}

// Next fires are counted on the doctor's clock, in the job's zone.
func TestDoctorNextFire(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "schedules:\n  weekly: {cron: 0 9 * * MON, timezone: Asia/Shanghai, prompt: report}\n")
	clk := clock.NewFake(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	rep := doctorReport(t, home, DoctorOptions{Offline: true, Clock: clk})
	r := findResult(t, rep, "schedule: weekly")
	if r.Status != doctor.OK || !strings.Contains(r.Finding, "next fire 2026-12-07 09:00 CST") {
		t.Errorf("%+v", r)
	}
	// Looking made nothing: no state.db before hermes first runs.
	if _, err := os.Stat(filepath.Join(home, "state.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the doctor created state.db (%v)", err)
	}
}

// A doctor before the first run creates no home: hermes makes it later
// with mode 0700, which a directory made by the doctor would not have.
func TestDoctorCreatesNoHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "hermes")
	rep := doctorReport(t, home, DoctorOptions{Offline: true})
	if _, err := os.Stat(home); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the doctor created %s (%v)", home, err)
	}
	if r := findResult(t, rep, "tools"); r.Status != doctor.OK {
		t.Errorf("tools: %+v", r)
	}
}
