package terminal

import (
	"strings"
	"testing"
)

// describe is a reader as the tests name it: none, shell, opaque, or the
// code readers' commands, joined by " + ".
func (r inputReader) describe() string {
	var parts []string
	if r.shell {
		parts = append(parts, "shell")
	}
	for _, c := range r.code {
		parts = append(parts, "code:"+c)
	}
	if r.opaque {
		parts = append(parts, "opaque")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}

// What is written to a background process is a command when the process
// is a shell or reads a program: told from its command line, through the
// wrappers, users, containers and hosts it goes through.
func TestReaderOf(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		// Programs that read data, or run a program they were given.
		{"sleep 300", "none"},
		{"cat", "none"},
		{"tail -f app.log", "none"},
		{"python3 server.py", "none"},
		{"python3 -m http.server 8000", "none"},
		{"python3 -c 'import sys; print(sys.stdin.read())'", "none"},
		{"node app.js", "none"},
		{"npm run dev", "none"},
		{"bash deploy.sh", "none"},
		{"sh ./run.sh --fast", "none"},
		{"bash -c 'sleep 5; echo done'", "none"},
		{`read -p "Continue? " ans; [ "$ans" = y ] && make deploy`, "none"},
		{"perl -ne 'print if /x/'", "none"},
		{"psql -c 'select 1' app", "none"},
		{"sqlite3 app.db 'select 1'", "none"},
		{"redis-cli get key", "none"},
		{"xargs -a list.txt rm", "none"},
		{"crontab jobs.txt", "none"},
		{"at -l", "none"},
		{"python3 < script.py", "none"},
		{"bash <<'EOF'\nls\nEOF", "none"},
		{"sudo apt-get update", "none"},
		{"sudo -l", "none"},
		{"ssh -N -L 8080:localhost:80 host", "none"},
		{"ssh host tail -f /var/log/syslog", "none"},
		{"docker exec ctr sh", "none"},
		{"docker run img", "none"},
		{"timeout 10 tail -f x", "none"},
		{"env", "none"},
		// Shells reading commands.
		{"bash", "shell"},
		{"sh", "shell"},
		{"/bin/bash -i", "shell"},
		{"bash -s", "shell"},
		{"sh -s -- a b", "shell"},
		{"bash -", "shell"},
		{"bash /dev/stdin", "shell"},
		{"zsh -f", "shell"},
		{"fish", "shell"},
		{"busybox sh", "shell"},
		{"exec bash", "shell"},
		{"env FOO=1 bash", "shell"},
		{"env -i PATH=/bin bash --norc", "shell"},
		{"env -S 'bash -i'", "shell"},
		{"nohup bash", "shell"},
		{"setsid -w bash", "shell"},
		{"timeout 300 bash", "shell"},
		{"timeout -s KILL 300 sh", "shell"},
		{"stdbuf -oL bash", "shell"},
		{"nice -n 5 bash", "shell"},
		{"script -q -c bash /dev/null", "shell"},
		{"script /dev/null", "shell"},
		{"sudo -s", "shell"},
		{"sudo -i", "shell"},
		{"sudo bash", "shell"},
		{"sudo -u bob HOME=/x bash -i", "shell"},
		{"doas -s", "shell"},
		{"su", "shell"},
		{"su -", "shell"},
		{"su - root", "shell"},
		{"su -c bash bob", "shell"},
		{"runuser -u bob -- bash", "shell"},
		{"pkexec", "shell"},
		{"chroot /srv/root", "shell"},
		{"nsenter -t 1 -m -u -i -n -p", "shell"},
		{"unshare -r", "shell"},
		{"newgrp docker", "shell"},
		{"sg docker", "shell"},
		{"ssh host", "shell"},
		{"ssh -t -p 2222 user@host", "shell"},
		{"ssh host bash", "shell"},
		{"ssh host 'sudo -s'", "shell"},
		{"vagrant ssh", "shell"},
		{"machinectl shell", "shell"},
		{"docker exec -it ctr sh", "shell"},
		{"kubectl exec -i pod -- bash", "shell"},
		{"kubectl -n prod exec -i pod -- bash", "shell"},
		{"sudo docker exec -it ctr sh", "shell"},
		{"docker -H ssh://box exec -i ctr bash", "shell"},
		{"env -S 'docker exec -it ctr sh'", "shell"},
		{"lxc exec c -- bash", "shell"},
		{"at now + 1 minute", "shell"},
		{"batch", "shell"},
		{"source /dev/stdin", "shell"},
		{"flock /tmp/lock bash", "shell"},
		{"cat | bash", "shell"},
		{"tee -a log | sh -s", "shell"},
		{"bash -c bash", "shell"},
		{"sh -c 'exec bash -i'", "shell"},
		{"while true; do bash; done", "shell"},
		{"if true; then sh; fi", "shell"},
		{"x=$(bash)", "shell"},
		{"echo `sh`", "shell"},
		{"for f in $(sh); do :; done", "shell"},
		{"cd /srv && exec bash -l", "shell"},
		{"FOO=1 bash", "shell"},
		{"bash 2>&1 | tee log", "shell"},
		// Programs whose input is code.
		{"python3", "code:python3"},
		{"python3.12 -i app.py", "code:python3.12 -i app.py"},
		{"python -", "code:python -"},
		{"python3 -m pdb app.py", "code:python3 -m pdb app.py"},
		{"python3 -q", "code:python3 -q"},
		{"ipython", "code:ipython"},
		{"node", "code:node"},
		{"node --interactive", "code:node --interactive"},
		{"deno repl", "code:deno repl"},
		{"perl", "code:perl"},
		{"perl -d script.pl", "code:perl -d script.pl"},
		{"irb", "code:irb"},
		{"php -a", "code:php -a"},
		{"lua5.4", "code:lua5.4"},
		{"R --vanilla", "code:R --vanilla"},
		{"Rscript -", "code:Rscript -"},
		{"psql", "code:psql"},
		{"psql -h db -U app app", "code:psql -h db -U app app"},
		{"mysql -u root app", "code:mysql -u root app"},
		{"sqlite3 app.db", "code:sqlite3 app.db"},
		{"sqlite3 -cmd '.timeout 100' app.db", "code:sqlite3 -cmd '.timeout 100' app.db"},
		{"redis-cli -h cache", "code:redis-cli -h cache"},
		{"gdb ./prog", "code:gdb ./prog"},
		{"xargs rm", "code:xargs rm"},
		{"xargs -n1 rm -rf", "code:xargs -n1 rm -rf"},
		{"parallel", "code:parallel"},
		{"crontab -", "code:crontab -"},
		{"ed notes.txt", "code:ed notes.txt"},
		{"sftp host", "code:sftp host"},
		{"env PYTHONPATH=. python3", "code:env PYTHONPATH=. python3"},
		{"sudo -u postgres psql", "code:sudo -u postgres psql"},
		{"docker exec -i db psql -U app", "code:docker exec -i db psql -U app"},
		{"ssh host python3", "code:python3"},
		{"cat | python3 -u", "code:python3 -u"},
		{"bash; python3", "shell + code:python3"},
		// What reads the input cannot be known from the command line.
		{"$SHELL", "opaque"},
		{"$(which bash)", "opaque"},
		{"`which sh` -i", "opaque"},
		{`eval "$CMD"`, "opaque"},
		{`bash -c "$X"`, "opaque"},
		{`ssh host "$CMD"`, "opaque"},
		{"/bin/ba?h", "opaque"},
		{"{ba,z}sh", "opaque"},
		{`env -S "$X"`, "opaque"},
		{`source "$F"`, "opaque"},
		{"docker run -it img", "opaque"},
		{"kubectl exec -i pod sh", "opaque"},
		{"lxc exec c bash", "opaque"},
		{"ssh -s host sftp", "opaque"},
		{"echo 'unterminated", "opaque"},
		{"eval bash", "shell"},
	} {
		if got := readerOf(tc.command).describe(); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.command, got, tc.want)
		}
	}
}

// settled finds where the input a shell has read ends in a whole command,
// so what follows is checked again with what comes next.
func TestSettled(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // the settled prefix
	}{
		{"ls\n", "ls\n"},
		{"ls", ""},
		{"ls\necho hi", "ls\n"},
		{"rm -rf \\\n", ""},
		{"rm -rf \\\n/\n", "rm -rf \\\n/\n"},
		{"echo 'a\n", ""},
		{"echo \"a\nb\"\n", "echo \"a\nb\"\n"},
		{"for d in /; do\n", ""},
		{"for d in /; do\nrm -rf $d\n", ""},
		{"for d in /; do\nrm -rf $d\ndone\n", "for d in /; do\nrm -rf $d\ndone\n"},
		{"if true; then\necho x\nfi\nls\n", "if true; then\necho x\nfi\nls\n"},
		{"f() {\necho x\n", ""},
		{"f() {\necho x\n}\n", "f() {\necho x\n}\n"},
		{"cat <<EOF\nrm -rf /\n", ""},
		{"cat <<EOF\nrm -rf /\nEOF\n", "cat <<EOF\nrm -rf /\nEOF\n"},
		{"cat <<-EOF\n\tx\n\tEOF\nls\n", "cat <<-EOF\n\tx\n\tEOF\nls\n"},
		{"ls |\n", ""},
		{"ls &&\n\n", ""},
		{"ls &&\nrm x\n", "ls &&\nrm x\n"},
		{"echo $(\n", ""},
		{"case $x in\na) rm -rf /;;\n", ""},
		{"case $x in\na) rm -rf /;;\nesac\n", "case $x in\na) rm -rf /;;\nesac\n"},
		{"echo ) oops\nls\n", "echo ) oops\nls\n"},
		{"echo done\n", "echo done\n"},
		{"# if\nls\n", "# if\nls\n"},
		{"(cd /tmp\n", ""},
		{"(cd /tmp\nls)\n", "(cd /tmp\nls)\n"},
	} {
		if got := tc.text[:settled(tc.text)]; got != tc.want {
			t.Errorf("%q: settled %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzInputReader feeds the lexer arbitrary text: it never panics, a
// settled prefix ends at a newline, and any text can be put to the
// approver.
func FuzzInputReader(f *testing.F) {
	for _, s := range []string{"bash", "sudo -u x -s", "cat <<EOF\nx\nEOF\n", "echo $(ls `pwd`) ${x:-y} $'a\\'b'",
		"for i in 1; do\nrm -rf $i\ndone\n", "case x in a) ls;; esac\n", "env -S 'sh -c \"python3 -i\"'", "a |\\\n b",
		"ssh -o X=1 h 'sudo -s'", "env -S 'kubectl exec -i p -- sh' x", "x=(a b); \"$@\" <(bash) >(sh)", "(( i++ ))\n[[ -f x ]] && sh\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_ = readerOf(text)
		n := settled(text)
		if n < 0 || n > len(text) || n > 0 && text[n-1] != '\n' {
			t.Fatalf("settled(%q) = %d", text, n)
		}
		_ = inputReader{shell: true, code: []string{"python3"}, opaque: true}.approvals(text, text)
	})
}
