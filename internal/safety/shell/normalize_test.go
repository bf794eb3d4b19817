package shell

import "testing"

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"rm -rf /", "rm -rf /"},
		{"ｒｍ -ｒｆ /", "rm -rf /"},
		{"\x1b[31mrm\x1b[0m -rf /", "rm -rf /"},
		{"\x1b]0;title\x07rm -rf /", "rm -rf /"},
		{"\u009b31mrm\u009b0m -rf /", "rm -rf /"},
		{"r\x00m -rf /", "rm -rf /"},
		{"r\u200bm -rf /", "rm -rf /"},
		{`r\m -rf /`, "rm -rf /"},
		{`r''m -rf /`, "rm -rf /"},
		{`r"m" -rf /`, "rm -rf /"},
		{"rm -rf \\\n/", "rm -rf /"},
		{"rm -rf \\\r\n/", "rm -rf /"},
		{"echo a\\\\\nb", "echo a\nb"}, // an escaped backslash does not continue the line
		{`rm${IFS}-rf${IFS}/`, "rm -rf /"},
		{`rm$IFS-rf$IFS/`, "rm -rf /"},
		{`rm${IFS:0:1}-rf /`, "rm -rf /"},
		{`echo $IFSACONFIG`, "echo $ifsaconfig"},
		{`RM -RF /`, "rm -rf /"},
		{`cat $HOME/.ssh/id_rsa`, "cat ~/.ssh/id_rsa"},
		{`cat ${HOME}/.ssh/id_rsa`, "cat ~/.ssh/id_rsa"},
		{`cat "$HOME/.bashrc"`, "cat ~/.bashrc"},
		{`cat /home/alice/.bashrc /Users/bob/.zshrc /root/.profile`, "cat ~/.bashrc ~/.zshrc ~/.profile"},
		{`cat ~bob/.netrc`, "cat ~/.netrc"},
		{`dd of=$HOME/x`, "dd of=~/x"},
		{`echo x > $HERMES_HOME/.env`, "echo x > ~/.hermes/.env"},
		{`type C:\Users\Tester\.ssh\config`, "type ~/.ssh/config"},
		{`ls /home/* /home/.. /var/root /rootfs $HOMEDIR`, "ls /home/* /home/.. /var/root /rootfs $homedir"},
		{`cd ~+ && cd ~-`, "cd ~+ && cd ~-"},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := Normalize(Normalize(tc.in)); again != Normalize(tc.in) {
			t.Errorf("Normalize is not idempotent on %q: %q then %q", tc.in, Normalize(tc.in), again)
		}
	}
}

// FuzzNormalize checks that Normalize never panics, always returns valid
// UTF-8, and is idempotent; and that Classify never panics on the same
// input.
func FuzzNormalize(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add(tc.cmd)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if again := Normalize(n); again != n {
			t.Fatalf("not idempotent: Normalize(%q) = %q, Normalize of that = %q", s, n, again)
		}
		_ = Classify(s)
	})
}
