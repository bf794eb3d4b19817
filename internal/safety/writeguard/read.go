package writeguard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Why and what instead, for refused reads.
const (
	envRule     = ".env files hold secrets"
	envHint     = "hermes already has the values it needs: its providers and declared tools read $HERMES_HOME/.env and the environment themselves, and no value has to pass through the conversation. To learn which variables a project expects, read its .env.example or ask the user"
	procRule    = "it is one of hermes's own /proc entries (or its parents'), whose environment, memory, command line and open files hold its keys"
	procEnvRule = "a process's environment and memory hold its secrets"
	procHint    = "hermes already has what it needs; to inspect a process, ask the user, or use ps for what it shows"
)

// CheckRead returns nil when the file tools may read path, or a
// *DeniedError: .env files (.env, *.env and .env.* other than committed
// templates), and /proc entries that expose hermes's secrets: everything
// of /proc/self, /proc/thread-self and of hermes's own process, its
// threads and its parents, and the environ and mem of any process. path
// must be absolute and clean. It is checked as given and at every
// symbolic link on the way to the file (/dev/stdin leads to
// /proc/self/fd/0, a link in a project to /proc/1234/environ).
func (g Guard) CheckRead(path string) error {
	path = filepath.Clean(path)
	var family map[int]bool // hermes and its parents, found on first need
	cur := path
	for hop := 0; hop < 16; hop++ {
		if d := g.readDeny(cur, &family); d != nil {
			d.Path = path
			if cur != path {
				d.Rule += " (" + path + " leads to " + cur + ")"
			}
			return d
		}
		// The same name in its directory's real place, then where it
		// leads if it is a link itself.
		dir, err := filepath.EvalSymlinks(filepath.Dir(cur))
		if err != nil {
			break
		}
		next := filepath.Join(dir, filepath.Base(cur))
		if next != cur {
			cur = next
			continue
		}
		target, err := os.Readlink(cur)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		cur = filepath.Clean(target)
	}
	return nil
}

// CheckReadName is CheckRead of the name alone, links not followed: for
// a file known not to be a link, or one on another host (whose links the
// caller resolves there, and where hermes has no process).
func (g Guard) CheckReadName(path string) error {
	var family map[int]bool
	if d := g.readDeny(filepath.Clean(path), &family); d != nil {
		d.Path = path
		return d
	}
	return nil
}

// readDeny judges one name; *family is filled on first need.
func (g Guard) readDeny(p string, family *map[int]bool) *DeniedError {
	if isEnvFile(filepath.Base(p)) {
		return &DeniedError{Rule: envRule, Hint: envHint, Read: true}
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return nil
	}
	if *family == nil {
		*family = g.processFamily()
	}
	return procDeny(rest, *family)
}

// procDeny judges rest, a path below /proc.
func procDeny(rest string, family map[int]bool) *DeniedError {
	parts := strings.Split(rest, "/")
	if parts[0] == "self" || parts[0] == "thread-self" {
		return &DeniedError{Rule: procRule, Hint: procHint, Read: true}
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil {
		return nil
	}
	if family[pid] {
		return &DeniedError{Rule: procRule, Hint: procHint, Read: true}
	}
	switch parts[len(parts)-1] {
	case "environ", "mem":
		return &DeniedError{Rule: procEnvRule, Hint: procHint, Read: true}
	}
	return nil
}

// processFamily is hermes's process (Pid, or this one), its threads,
// which /proc also shows as processes, and its parents up to the first
// process; none for a negative Pid.
func (g Guard) processFamily() map[int]bool {
	pid := g.Pid
	if pid == 0 {
		pid = os.Getpid()
	}
	fam := map[int]bool{}
	if pid < 0 {
		return fam
	}
	fam[pid] = true
	if tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task"); err == nil {
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				fam[tid] = true
			}
		}
	}
	for p, n := pid, 0; p > 1 && n < 64; n++ {
		pp := parentPid(p)
		if pp <= 0 {
			break
		}
		fam[pp] = true
		p = pp
	}
	return fam
}

// parentPid reads the parent of pid from /proc/PID/stat, or returns 0.
func parentPid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}
