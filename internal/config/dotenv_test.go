package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseDotenv(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want map[string]string
	}{
		{"plain", "A=1\nB=two words\n", map[string]string{"A": "1", "B": "two words"}},
		{"export prefix", "export A=1\nexport\tB=2\nexported=3\n", map[string]string{"A": "1", "B": "2", "exported": "3"}},
		{"comments and blanks", "# comment\n\n   \n  # indented comment\nA=1 # trailing\nB=x#not-a-comment\nC=#kept\nD= # only a comment\n",
			map[string]string{"A": "1", "B": "x#not-a-comment", "C": "#kept", "D": ""}},
		{"spaces around =", "A = 1\n  B=  2  \n", map[string]string{"A": "1", "B": "2"}},
		{"empty value", "A=\nB=''\nC=\"\"\n", map[string]string{"A": "", "B": "", "C": ""}},
		{"single quotes are literal", `A='a\nb $X # not comment'`, map[string]string{"A": `a\nb $X # not comment`}},
		{"double quotes process escapes", `A="line1\nline2\t\"q\" \\ \$ \x"`, map[string]string{"A": "line1\nline2\t\"q\" \\ $ \\x"}},
		{"comment after quotes", `A="x" # note` + "\nB='y'   \n", map[string]string{"A": "x", "B": "y"}},
		{"multi-line quoted value", "KEY=\"-----BEGIN\nabc\n-----END\"\nNEXT=1\n", map[string]string{"KEY": "-----BEGIN\nabc\n-----END", "NEXT": "1"}},
		{"equals in value", "URL=http://h/?a=b&c=d\n", map[string]string{"URL": "http://h/?a=b&c=d"}},
		{"CRLF and BOM", "\ufeffA=1\r\nB='2'\r\n", map[string]string{"A": "1", "B": "2"}},
		{"later wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"no trailing newline", "A=1", map[string]string{"A": "1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars, _, errs := parseDotenv([]byte(tc.in), ".env")
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			got := map[string]string{}
			for k, e := range vars {
				got[k] = e.Value
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseDotenvErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"no equals", "A=1\nsk-live-0123456789\n", []string{".env:2: not a KEY=VALUE line"}},
		{"bad name", "A=1\n\n9LIVES=x\n", []string{`.env:3: the name before "=" is not accepted; use letters, digits and _`}},
		{"space in name", "MY KEY=x\n", []string{`.env:1: the name before "=" is not accepted; use letters, digits and _`}},
		{"unclosed double quote", "A=1\nB=\"abc\nC=2\n", []string{`.env:2: B: closing " is missing`}},
		{"unclosed single quote", "B='abc\n", []string{`.env:1: B: closing ' is missing`}},
		{"text after quote", "B=\"abc\" def\n", []string{`.env:1: B: unexpected text after the closing "`}},
		{"several", "x\ny\nOK=1\n", []string{".env:1: not a KEY=VALUE line", ".env:2: not a KEY=VALUE line"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, errs := parseDotenv([]byte(tc.in), ".env")
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
				if strings.Contains(e.Error(), "sk-live") {
					t.Errorf("the line's content leaked: %v", e)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDotenvWarnsOnRepeats(t *testing.T) {
	vars, warns, _ := parseDotenv([]byte("A=1\n# x\nA=2\n"), ".env")
	if vars["A"].Value != "2" || vars["A"].Line != 3 {
		t.Errorf("A = %+v", vars["A"])
	}
	if want := []string{".env:3: A is set again (first on line 1); the later value wins"}; !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings = %q", warns)
	}
}

func TestLoadDotenvFeedsEnvLookup(t *testing.T) {
	l := mustLoad(t, map[string]string{".env": "TELEGRAM_BOT_TOKEN=from-file\nSHARED=file\n"}, map[string]string{"SHARED": "process"}, nil)
	if v, ok := l.Env("TELEGRAM_BOT_TOKEN"); !ok || v != "from-file" {
		t.Errorf("Env(TELEGRAM_BOT_TOKEN) = %q, %v", v, ok)
	}
	if v, _ := l.Env("SHARED"); v != "process" {
		t.Errorf("Env(SHARED) = %q; the process environment must win over .env", v)
	}
	if _, ok := l.Env("MISSING"); ok {
		t.Error("Env(MISSING) found something")
	}
}

func TestLoadWarnsAboutReadableDotenv(t *testing.T) {
	dir := home(t, map[string]string{".env": "A=1\n"})
	if err := os.Chmod(filepath.Join(dir, ".env"), 0o644); err != nil {
		t.Skip(err)
	}
	l, err := Load(LoadOptions{Home: dir, Env: MapLookup(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "is readable by other users; run: chmod 600") {
		t.Errorf("Warnings = %q", l.Warnings)
	}
}
