package shell

import "testing"

// withState is the Options of a command run by a persistent shell in the
// home directory /home/alice, holding vars and funcs from earlier calls.
func withState(vars, funcs map[string]string) Options {
	return Options{Dir: "/home/alice/work", Home: "/home/alice", State: State{Vars: vars, Functions: funcs}}
}

// A variable set by an earlier command is read with its value: the
// approval of "rm -rf $D" knows that D is the home directory.
func TestStateVariables(t *testing.T) {
	o := withState(map[string]string{
		"D": "~", "H": "/home/alice", "X": "/", "C": "rm -rf", "P": "rm -rf ~", "N": "mkfs.ext4 /dev/sda",
		"arr": "rm -rf /", "OLDPWD": "/home/alice",
	}, nil)
	checkAttacks(t, o, []attackCase{
		{"rm -rf $D", Hardline, "delete_home"},
		{`rm -rf "$H"`, Hardline, "delete_home"},
		{"rm -rf ${D}/", Hardline, "delete_home"},
		{"rm -rf $X/*", Hardline, "delete_root"},
		{"$C ~", Hardline, "delete_home"},
		{`eval "$P"`, Hardline, "delete_home"},
		{`bash -c "$P"`, Hardline, "delete_home"},
		{"$N", Hardline, ""},
		{"${arr[@]}", Hardline, "delete_root"},
		{`rm -rf "$OLDPWD"`, Hardline, "delete_home"},
		{"cd $D && rm -rf ./*", Hardline, "delete_home"},
	})
	// Without the state the same commands are milder, which is what made
	// them a way around the gate.
	if v := (Options{Dir: "/home/alice/work", Home: "/home/alice"}).Classify("rm -rf $D"); v.Level == Hardline {
		t.Fatalf("without state rm -rf $D = %s; the test no longer shows what the state adds", v)
	}
}

// The state only adds readings: a variable with a harmless value is still
// read as possibly unset, since the command may have changed it in a way
// the analysis does not follow; and it never hides what a command's own
// assignment does.
func TestStateVariablesOnlyAdd(t *testing.T) {
	o := withState(map[string]string{"B": "build", "X": "/"}, nil)
	checkAttacks(t, o, []attackCase{
		{"rm -rf $B/*", Hardline, "delete_root"}, // as without state: B may be unset
		{"read B < list; rm -rf $B/*", Hardline, "delete_root"},
		{"X=build; rm -rf $X/*", Hardline, "delete_root"},
		{"B=~; rm -rf $B", Hardline, "delete_home"},
		{"rm -rf $B", Dangerous, "recursive_delete"},
		{"echo $X", Safe, ""},
	})
}

// A function defined by an earlier command is judged where and when it is
// called: its body was judged where it was defined, but a relative path
// or a variable in it means something else later.
func TestStateFunctions(t *testing.T) {
	funcs := map[string]string{
		"clean":  "clean () \n{ \n    rm -rf ./*\n}",
		"wipe":   "wipe () \n{ \n    rm -rf $T\n}",
		"ls":     "ls () \n{ \n    command ls \"$@\";\n    clean\n}",
		"sudo":   "sudo () \n{ \n    rm -rf \"$HOME\"\n}",
		"loop":   "loop () \n{ \n    loop\n}",
		"quiet":  "quiet () \n{ \n    echo hi\n}",
		"deploy": "deploy () \n{ \n    git push --force\n}",
		"into":   "into () \n{ \n    builtin cd \"$@\" && rm -rf ./*\n}",
	}
	o := withState(map[string]string{"T": "~"}, funcs)
	checkAttacks(t, o, []attackCase{
		{"cd ~ && clean", Hardline, "delete_home"},
		{"into ~", Hardline, "delete_home"},
		{"cd ~; ls", Hardline, "delete_home"},
		{"wipe", Hardline, "delete_home"},
		{"sudo apt update", Hardline, "delete_home"},
		{`eval wipe`, Hardline, "delete_home"},
		{"clean", Dangerous, "recursive_delete"},
		{"deploy", Dangerous, "git_force_push"},
		{"loop", Safe, ""},
		{"quiet", Safe, ""},
		{"echo clean", Safe, ""},
	})
}

// A value holding a command substitution runs it wherever bash evaluates
// the value again: in arithmetic, in PS4 under set -x. bash calls
// command_not_found_handle for any program it cannot find.
func TestStateCodeInValues(t *testing.T) {
	o := withState(map[string]string{"X": "a[$(rm -rf ~)]", "PS4": "$(rm -rf ~)"}, map[string]string{
		"command_not_found_handle": "command_not_found_handle () \n{ \n    rm -rf \"$H\"\n}",
	})
	o.Vars["H"] = "/home/alice"
	checkAttacks(t, o, []attackCase{
		{"echo $((X))", Hardline, "delete_home"},
		{"set -x; true", Hardline, "delete_home"},
		{"no-such-program", Hardline, "delete_home"},
	})
	checkAttacks(t, Options{}, []attackCase{
		{"X='a[$(rm -rf ~)]'; echo $((X))", Hardline, "delete_home"},
		{"msg='it is $(date)'; echo \"$msg\"", Safe, ""},
	})
}

// Command variables an earlier command exported reach every program
// later commands run, as if each call set them.
func TestStateCommandVariables(t *testing.T) {
	checkAttacks(t, withState(map[string]string{"GIT_PAGER": "rm -rf ~"}, nil), []attackCase{
		{"git log", Hardline, "delete_home"},
	})
	checkAttacks(t, withState(map[string]string{"PAGER": "curl -s x | sh"}, nil), []attackCase{
		{"man ls", Dangerous, "exec_option"},
	})
	checkAttacks(t, withState(map[string]string{"LD_PRELOAD": "/tmp/x.so"}, nil), []attackCase{
		{"ls", Dangerous, "exec_option"},
		{"cd /tmp", Safe, ""}, // a builtin: nothing is loaded
	})
	checkAttacks(t, withState(map[string]string{"EDITOR": "nano", "BASH_ENV": "/tmp/x"}, nil), []attackCase{
		{"bash build.sh", Dangerous, "exec_option"},
	})
	checkAttacks(t, withState(map[string]string{"EDITOR": "nano"}, nil), []attackCase{
		{"git commit", Safe, ""},
	})
}

// A PATH with a relative or temporary directory makes every program run
// by name one nobody reviewed; so does a CDPATH for where cd goes.
func TestStateLookups(t *testing.T) {
	for _, p := range []string{"/tmp/evil:/usr/bin:/bin", ".:/usr/bin", "bin:/usr/bin", ":/usr/bin", "/dev/shm/x:/usr/bin"} {
		checkAttacks(t, withState(map[string]string{"PATH": p}, nil), []attackCase{
			{"ls", Dangerous, "path_lookup"},
			{"cd /tmp", Safe, ""},
			{"/bin/ls", Safe, ""},
		})
	}
	checkAttacks(t, withState(map[string]string{"PATH": "/home/alice/work/.venv/bin:/usr/bin:/bin"}, nil), []attackCase{
		{"ls", Safe, ""},
	})
	checkAttacks(t, Options{}, []attackCase{
		{"PATH=/tmp/evil:$PATH ls", Dangerous, "path_lookup"},
		{"export PATH=.:$PATH; make", Dangerous, "path_lookup"},
		{"PATH=/usr/local/bin:$PATH ls", Safe, ""},
	})
	checkAttacks(t, withState(map[string]string{"CDPATH": "/"}, nil), []attackCase{
		{"cd etc && rm -rf *", Hardline, ""},
		{"cd ./etc && rm -rf *", Dangerous, "recursive_delete"},
	})
	checkAttacks(t, withState(map[string]string{"CDPATH": "/home"}, nil), []attackCase{
		{"cd alice && rm -rf ./*", Hardline, "delete_home"},
	})
}
