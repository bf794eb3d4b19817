package mailtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// startDovecot runs Dovecot in the foreground with a configuration of its
// own: IMAP only, plain text on loopback, one user in a passwd file. Mail
// is kept by a user that is not root, because Dovecot refuses to give
// root a mailbox: the test's own user, or nobody when the tests run as
// root.
func (s *Server) startDovecot(t testing.TB, bin string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hermes-dovecot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	uid, gid, extra := os.Getuid(), os.Getgid(), ""
	if uid == 0 {
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("mailtest: running as root, dovecot needs a user that is not root for the mailbox, and there is no nobody: %v", err)
		}
		uid, _ = strconv.Atoi(nobody.Uid)
		gid, _ = strconv.Atoi(nobody.Gid)
	} else {
		me, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		extra = fmt.Sprintf("default_internal_user = %s\ndefault_login_user = %s\n", me.Username, me.Username)
	}
	// Dovecot's own processes run as its users and read the passwd file.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mail := filepath.Join(dir, "mail")
	if err := os.Mkdir(mail, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(mail, uid, gid); err != nil && os.Getuid() == 0 {
		t.Fatal(err)
	}
	users := filepath.Join(dir, "users")
	line := fmt.Sprintf("%s:{PLAIN}%s:%d:%d::%s\n", s.User, s.Password, uid, gid, filepath.Join(mail, "hermes"))
	if err := os.WriteFile(users, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	s.IMAPAddr = freePort(t)
	host, port, _ := net.SplitHostPort(s.IMAPAddr)
	conf := fmt.Sprintf(`base_dir = %[1]s/run
state_dir = %[1]s/state
log_path = /dev/stderr
protocols = imap
listen = %[2]s
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:~/Maildir
%[5]spassdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%%u %[4]s
}
userdb {
  driver = passwd-file
  args = username_format=%%u %[4]s
}
service imap-login {
  inet_listener imap {
    address = %[2]s
    port = %[3]s
  }
  inet_listener imaps {
    port = 0
  }
}
`, dir, host, port, users, extra)
	path := filepath.Join(dir, "dovecot.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "dovecot", exec.Command(bin, "-F", "-c", path), "starting up")
	listening(t, "dovecot", s.IMAPAddr)
}
