package shell

import "strings"

// opts is a command's arguments read the way GNU getopt reads them:
// options may come before or after operands (rm build/ -rf), "--" ends
// them, short options bundle (-rf), and some take a value, attached
// (-m600, --mode=600) or as the next argument (-m 600, --mode 600).
type opts struct {
	// short holds every short option letter, in order, case kept.
	short string
	// long holds the long option names as written, without "--" or
	// "=value" (they may be abbreviations: --recur).
	long []string
	// values holds the value of each option that takes one, keyed by the
	// short letter or the full long name.
	values []optValue
	// operands are the non-option arguments.
	operands []word
}

type optValue struct{ name, value string }

// getopt reads args with GNU rules. argShort lists the short options that
// take a value; argLong, space-separated, the long ones (full names; an
// abbreviation is matched to them).
func getopt(args []word, argShort, argLong string) opts {
	var o opts
	for i := 0; i < len(args); i++ {
		a := args[i].raw
		switch {
		case a == "--":
			o.operands = append(o.operands, args[i+1:]...)
			return o
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			o.long = append(o.long, name)
			if full := matchLong(name, argLong); full != "" {
				if !hasValue && i+1 < len(args) {
					i++
					value = args[i].raw
				}
				o.values = append(o.values, optValue{full, value})
			}
		case len(a) > 1 && a[0] == '-':
			for k := 1; k < len(a); k++ {
				o.short += a[k : k+1]
				if strings.IndexByte(argShort, a[k]) < 0 {
					continue
				}
				value := a[k+1:]
				if value == "" && i+1 < len(args) {
					i++
					value = args[i].raw
				}
				o.values = append(o.values, optValue{a[k : k+1], value})
				break
			}
		default:
			o.operands = append(o.operands, args[i])
		}
	}
	return o
}

// has reports whether any of the short letters was given.
func (o opts) has(letters string) bool { return strings.ContainsAny(o.short, letters) }

// hasLong reports whether a long option spelling full was given, allowing
// abbreviations of at least min letters.
func (o opts) hasLong(full string, min int) bool {
	for _, l := range o.long {
		if len(l) >= min && strings.HasPrefix(full, l) {
			return true
		}
	}
	return false
}

// value returns the value given to option name (a short letter or a full
// long name) and whether it was given; the last one wins.
func (o opts) value(names ...string) (string, bool) {
	for i := len(o.values) - 1; i >= 0; i-- {
		for _, n := range names {
			if o.values[i].name == n {
				return o.values[i].value, true
			}
		}
	}
	return "", false
}

// lower returns s lower-cased with homes folded, as word text is.
func lower(s string) string { return foldHomes(strings.ToLower(s)) }

// texts returns the text of each word.
func texts(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}

// anyWord reports whether f holds for the text of any word.
func anyWord(ws []word, f func(string) bool) bool {
	for _, w := range ws {
		if f(w.text) {
			return true
		}
	}
	return false
}
