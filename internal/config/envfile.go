package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// SetEnv writes vars (NAME → value) into home/.env, merged with what is
// there: a variable already set has its line replaced in place (and any
// earlier lines setting it again removed), other lines and comments stay,
// new variables are added at the end. The file is replaced atomically
// with mode 0600, also when it was readable by others before, since it
// holds secrets. A .env that does not parse, a bad name or a value with a
// line break or control character is an error and nothing is written;
// messages never repeat a value. It returns the path written.
func SetEnv(home string, vars map[string]string) (string, error) {
	path := filepath.Join(home, ".env")
	if len(vars) == 0 {
		return path, nil
	}
	names := make([]string, 0, len(vars))
	for name, value := range vars {
		if !validEnvName(name) {
			return "", fmt.Errorf("config: %q is not accepted as a variable name in .env; use letters, digits and _", name)
		}
		if err := checkEnvValue(value); err != nil {
			return "", fmt.Errorf("config: %s: %w; nothing was written", name, err)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	data, err := readOptional(path)
	if err != nil {
		return "", err
	}
	out, err := mergeDotenv(data, names, vars)
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(path, out, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// mergeDotenv returns data with each of names set to vars[name].
func mergeDotenv(data []byte, names []string, vars map[string]string) ([]byte, error) {
	parsed, _, errs := parseDotenv(data, ".env")
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w\n(fix .env before hermes writes to it; nothing was written)", errors.Join(errs...))
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	// replace[i] is the new text of line i+1; drop marks lines removed.
	replace := map[int]string{}
	drop := map[int]bool{}
	var added []string
	for _, name := range names {
		line := name + "=" + quoteEnvValue(vars[name])
		e, ok := parsed[name]
		if !ok {
			added = append(added, line)
			continue
		}
		replace[e.Line] = line
		for n := e.Line + 1; n <= e.End; n++ {
			drop[n] = true
		}
		for _, span := range e.Earlier {
			for n := span[0]; n <= span[1]; n++ {
				drop[n] = true
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		n := i + 1
		if r, ok := replace[n]; ok {
			l = r
		} else if drop[n] {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range added {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// checkEnvValue accepts a value that fits on one .env line: no line
// breaks or other control characters, which a pasted key never needs.
func checkEnvValue(v string) error {
	for _, r := range v {
		if unicode.IsControl(r) {
			return errors.New("the value holds a line break or control character, which is not accepted; give it on one line")
		}
	}
	return nil
}

// quoteEnvValue writes v so that parseDotenv reads back exactly v: bare
// when it is only safe characters, else in single quotes (taken
// literally), else in double quotes with escapes.
func quoteEnvValue(v string) string {
	safe := v != ""
	for _, r := range v {
		if !(r == '-' || r == '_' || r == '.' || r == ':' || r == '/' || r == '+' || r == '=' || r == '@' || r == ',' ||
			r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			safe = false
			break
		}
	}
	switch {
	case safe:
		return v
	case !strings.Contains(v, "'"):
		return "'" + v + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(v) + `"`
}
