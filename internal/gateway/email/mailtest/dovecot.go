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
// own: IMAP only, on loopback, plain text and STARTTLS on one port and
// implicit TLS on another, with the certificate in certFile and keyFile,
// one user in a passwd file. Mail
// is kept by a user that is not root, because Dovecot refuses to give
// root a mailbox: the test's own user, or nobody when the tests run as
// root.
func (s *Server) startDovecot(t testing.TB, bin, certFile, keyFile string, o Options) {
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
	if o.NoIdle {
		extra += "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+\n"
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
	s.IMAPAddr, s.IMAPSAddr = freePort(t), freePort(t)
	host, port, _ := net.SplitHostPort(s.IMAPAddr)
	_, tlsPort, _ := net.SplitHostPort(s.IMAPSAddr)
	conf := fmt.Sprintf(`base_dir = %[1]s/run
state_dir = %[1]s/state
log_path = /dev/stderr
protocols = imap
listen = %[2]s
ssl = yes
ssl_cert = <%[6]s
ssl_key = <%[7]s
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
    address = %[2]s
    port = %[8]s
  }
}
`, dir, host, port, users, extra, certFile, keyFile, tlsPort)
	path := filepath.Join(dir, "dovecot.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "dovecot", exec.Command(bin, "-F", "-c", path), "starting up")
	listening(t, "dovecot", s.IMAPAddr)
	listening(t, "dovecot", s.IMAPSAddr)
}
