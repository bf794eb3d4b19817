package writeguard

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCheckReadEnvFiles(t *testing.T) {
	g := Guard{}
	for _, p := range []string{"/srv/app/.env", "/srv/app/.env.local", "/srv/app/.env.production", "/srv/app/prod.env", "/home/u/.hermes/.env"} {
		err := g.CheckRead(p)
		var de *DeniedError
		if !errors.As(err, &de) || !de.Read || !strings.Contains(err.Error(), "already has the values it needs") {
			t.Errorf("CheckRead(%s) = %v, want refused saying hermes has the values", p, err)
		}
	}
	for _, p := range []string{"/srv/app/.env.example", "/srv/app/.envrc", "/srv/app/env.go", "/srv/app/.environment", "/srv/app/README.md"} {
		if err := g.CheckRead(p); err != nil {
			t.Errorf("CheckRead(%s) = %v, want allowed", p, err)
		}
	}
}

func TestCheckReadProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	g := Guard{}
	pid, ppid := os.Getpid(), os.Getppid()
	tasks, _ := os.ReadDir("/proc/self/task")
	var tid string
	for _, e := range tasks {
		if e.Name() != fmt.Sprint(pid) {
			tid = e.Name()
		}
	}
	denied := []string{
		"/proc/self/environ", "/proc/self/cmdline", "/proc/self/maps", "/proc/self/mem", "/proc/self/fd/0",
		"/proc/self/root/etc/hostname", "/proc/thread-self/environ",
		fmt.Sprintf("/proc/%d/environ", pid), fmt.Sprintf("/proc/%d/cmdline", pid), fmt.Sprintf("/proc/%d/fd/1", pid),
		fmt.Sprintf("/proc/%d/task/%d/environ", pid, pid),
		fmt.Sprintf("/proc/%d/environ", ppid), fmt.Sprintf("/proc/%d/cmdline", ppid),
		"/proc/1/environ",
		"/dev/stdin", "/dev/fd/0",
	}
	if tid != "" {
		denied = append(denied, "/proc/"+tid+"/environ")
	}
	for _, p := range denied {
		if err := g.CheckRead(p); err == nil {
			t.Errorf("CheckRead(%s) allowed", p)
		}
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	cp := child.Process.Pid
	for _, p := range []string{"/proc/cpuinfo", "/proc/meminfo", fmt.Sprintf("/proc/%d/status", cp), fmt.Sprintf("/proc/%d/cmdline", cp)} {
		if err := g.CheckRead(p); err != nil {
			t.Errorf("CheckRead(%s) = %v, want allowed", p, err)
		}
	}
	if err := g.CheckRead(fmt.Sprintf("/proc/%d/environ", cp)); err == nil {
		t.Error("another process's environ allowed")
	}
	// Seen from the child as hermes, the test process is a parent.
	gc := Guard{Pid: cp}
	for _, p := range []string{fmt.Sprintf("/proc/%d/cmdline", cp), fmt.Sprintf("/proc/%d/status", pid)} {
		if err := gc.CheckRead(p); err == nil {
			t.Errorf("Pid %d: CheckRead(%s) allowed", cp, p)
		}
	}
}

// Links cannot lead a read to what CheckRead refuses.
func TestCheckReadThroughLinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "app", ".env")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(secret, []byte("K=v"), 0o600)
	mustLink(t, fmt.Sprintf("/proc/%d/environ", os.Getpid()), filepath.Join(dir, "notes.txt"))
	mustLink(t, "/proc/self", filepath.Join(dir, "me"))
	mustLink(t, secret, filepath.Join(dir, "config.txt"))
	mustLink(t, filepath.Join(dir, "config.txt"), filepath.Join(dir, "chain.txt"))
	g := Guard{}
	for _, name := range []string{"notes.txt", "me/environ", "me/status", "config.txt", "chain.txt"} {
		err := g.CheckRead(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), "leads to") {
			t.Errorf("CheckRead(%s) = %v, want refused through the link", name, err)
		}
	}
}

func TestCheckReadName(t *testing.T) {
	remote := Guard{Pid: -1}
	for p, deny := range map[string]bool{
		"/srv/.env": true, "/proc/self/environ": true, "/proc/77/environ": true,
		"/proc/77/status": false, "/srv/notes.txt": false, "/dev/stdin": false,
	} {
		if err := remote.CheckReadName(p); (err != nil) != deny {
			t.Errorf("CheckReadName(%s) = %v, want denied %v", p, err, deny)
		}
	}
}
