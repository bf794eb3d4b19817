package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/subdir"
)

// Permissions checks that the secrets file (.env) is readable by its
// owner only, and that the home directory is not open to others. A .env
// that is a symbolic link is judged by its target only while the target
// stays inside home: the doctor never reports on (or invites a chmod of)
// a file outside the home it was asked about.
func Permissions(home, envFile string) Check {
	return Check{Name: "permissions", Run: func(context.Context) []Result {
		return []Result{homeMode(home), envMode(home, envFile)}
	}}
}

// homeMode reports a home directory that others may enter or list.
func homeMode(home string) Result {
	const name = "permissions: home"
	fi, err := os.Stat(home)
	if errors.Is(err, fs.ErrNotExist) {
		return Okf(name, "%s does not exist yet; hermes creates it with mode 0700", home)
	}
	if err != nil {
		return Problem(name, Fail, "ls -ld "+ShellQuote(home), "%s cannot be read: %v", home, err)
	}
	if !fi.IsDir() {
		return Problem(name, Fail, "mv "+ShellQuote(home)+" "+ShellQuote(home+".old"), "%s is not a directory", home)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return Problem(name, Warn, "chmod 700 "+ShellQuote(home),
			"%s has mode %04o: other users can look into hermes's sessions and memory", home, perm)
	}
	return Okf(name, "%s has mode %04o", home, fi.Mode().Perm())
}

// envMode reports a .env others can read, without following a link out
// of home.
func envMode(home, envFile string) Result {
	const name = "permissions: .env"
	fi, err := os.Lstat(envFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Okf(name, "no %s (secrets come from the environment)", envFile)
	}
	if err != nil {
		return Problem(name, Fail, "ls -l "+ShellQuote(envFile), "%s cannot be read: %v", envFile, err)
	}
	path := envFile
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(envFile)
		if err != nil {
			return Problem(name, Fail, "ls -l "+ShellQuote(envFile), "%s is a symbolic link that does not resolve: %v", envFile, err)
		}
		if !inside(home, target) {
			return Problem(name, Warn, "mv "+ShellQuote(envFile)+" "+ShellQuote(envFile+".link")+" && install -m 600 /dev/null "+ShellQuote(envFile),
				"%s is a symbolic link out of %s; its target's permissions are not checked", envFile, home)
		}
		if fi, err = os.Stat(target); err != nil {
			return Problem(name, Fail, "ls -l "+ShellQuote(target), "%s cannot be read: %v", target, err)
		}
		path = target
	}
	if !fi.Mode().IsRegular() {
		return Problem(name, Fail, "ls -l "+ShellQuote(path), "%s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return Problem(name, Fail, "chmod 600 "+ShellQuote(path),
			"%s has mode %04o: other users can read the keys in it", path, perm)
	}
	return Okf(name, "%s has mode %04o", path, fi.Mode().Perm())
}

// inside reports whether path is dir or below it, with dir's own links
// resolved so that a home reached through a link still contains its files.
func inside(dir, path string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	return subdir.Within(dir, path)
}

// shellQuote quotes s for a POSIX shell when it needs quoting, so a fix
// can be pasted as it is.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sizeText is a byte count for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
