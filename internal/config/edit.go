package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SetResult reports what Set wrote.
type SetResult struct {
	// File is the config.yaml written.
	File string
	// Key is the key in its canonical form ("fallback_providers[0].model").
	Key string
	// Value is the value as written, redacted for secrets.
	Value string
	// Note is advice for the person, such as where secrets usually live;
	// empty when there is none.
	Note string
}

// Set writes key = value into home/config.yaml (home as returned by Home,
// profile applied). The file is edited through its YAML tree, so comments
// and other keys stay; a value already on one line is replaced in place, so
// even blank lines and spacing stay. Missing sections are created. The
// value is parsed by the same rules as Load and rejected, leaving the file
// untouched, with the same messages; a value containing ${VAR} is written
// as is and checked when loaded. A section (such as fallback_providers)
// takes a YAML value: '[{provider: openrouter, model: x}]'. The file is
// replaced atomically with mode 0600.
func Set(home, key, value string) (SetResult, error) {
	path := filepath.Join(home, "config.yaml")
	data, err := readOptional(path)
	if err != nil {
		return SetResult{}, err
	}
	out, res, err := setYAML(data, key, value)
	if err != nil {
		return SetResult{}, err
	}
	if err := writeFileAtomic(path, out, 0o600); err != nil {
		return SetResult{}, err
	}
	res.File = path
	if res.Note != "" {
		res.Note = strings.ReplaceAll(res.Note, "$ENVFILE", filepath.Join(home, ".env"))
	}
	return res, nil
}

// SetMany writes several keys into home/config.yaml as one change: each
// is set as Set would, in order, and the file is written once at the end,
// so a value that is refused leaves the file as it was. pairs holds
// key, value, key, value, ...
func SetMany(home string, pairs ...string) ([]SetResult, error) {
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("config: SetMany takes key, value pairs; got %d strings", len(pairs))
	}
	path := filepath.Join(home, "config.yaml")
	data, err := readOptional(path)
	if err != nil {
		return nil, err
	}
	var results []SetResult
	for i := 0; i < len(pairs); i += 2 {
		var res SetResult
		if data, res, err = setYAML(data, pairs[i], pairs[i+1]); err != nil {
			return nil, fmt.Errorf("%w (nothing was written)", err)
		}
		res.File = path
		res.Note = strings.ReplaceAll(res.Note, "$ENVFILE", filepath.Join(home, ".env"))
		results = append(results, res)
	}
	if err := writeFileAtomic(path, data, 0o600); err != nil {
		return nil, err
	}
	return results, nil
}

// setYAML returns data with key set to value.
func setYAML(data []byte, key, value string) ([]byte, SetResult, error) {
	segs, err := splitKey(key)
	if err != nil {
		return nil, SetResult{}, err
	}
	root, _, err := parseYAML(data, "config.yaml")
	if err != nil {
		return nil, SetResult{}, fmt.Errorf("%w (fix config.yaml before setting values)", err)
	}
	cur := Defaults()
	if root != nil {
		newDecoder("config.yaml", nil).decode(root, reflect.ValueOf(&cur).Elem(), "", "", 0)
	}
	canon := joinKey(configType, segs)
	res := SetResult{Key: canon, Value: value}
	var newNode *yaml.Node
	var isSecret bool
	err = walk(reflect.ValueOf(&cur).Elem(), segs, nil, true, func(v reflect.Value, check string) error {
		isSecret = v.Type() == secretType
		var err error
		newNode, err = valueNode(v, check, canon, value)
		return err
	})
	if uk, ok := err.(*UnknownKeyError); ok {
		uk.Suggestions = keySuggestions(reflect.ValueOf(&cur).Elem(), uk.Key)
	}
	if err != nil {
		return nil, SetResult{}, err
	}
	out, err := editDocument(data, segs, newNode)
	if err != nil {
		return nil, SetResult{}, err
	}
	if err := checkEdited(out, canon); err != nil {
		return nil, SetResult{}, err
	}
	if isSecret {
		res.Value = Redact(value)
		res.Note = secretNote(&cur, segs)
		if name, ok := varRef(value); ok {
			// A reference is not the secret: it is read where it lives.
			res.Value = value
			res.Note = fmt.Sprintf("the key is read from %s, in $ENVFILE or the environment", name)
		}
	}
	return out, res, nil
}

// valueNode parses value for the target v and returns the node to write.
func valueNode(v reflect.Value, check, key, value string) (*yaml.Node, error) {
	t := v.Type()
	if isLeaf(t) {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: yamlTag(t), Value: value}
		if strings.Contains(value, "${") {
			n.Tag = "!!str"
			return n, nil
		}
		if p := parseLeaf(v, value, check); p != "" {
			shown := value
			if t == secretType {
				shown = Redact(value)
			}
			return nil, badValue("", key, shown, p)
		}
		if t.Kind() != reflect.String {
			n.Value = formatLeaf(v)
			if t == durationType {
				n.Value = strings.TrimSpace(value)
			}
		}
		return n, nil
	}
	root, _, err := parseYAML([]byte(value), "value")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	if root == nil {
		return nil, badValue("", key, value, "is not accepted; give the section as YAML, such as '[{provider: openrouter, model: NAME}]'")
	}
	d := newDecoder("", nil)
	d.decode(root, reflect.New(t).Elem(), key, check, 0)
	for _, w := range d.warns {
		d.errs = append(d.errs, errors.New(w))
	}
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	return root, nil
}

// checkEdited loads the edited document and rejects it if the key just set
// now fails a check that spans settings, such as a provider that is
// neither built in nor defined. Problems elsewhere in the file were there
// before and are not Set's to report.
func checkEdited(data []byte, key string) error {
	root, _, err := parseYAML(data, "config.yaml")
	if err != nil {
		return fmt.Errorf("config: the edit would break config.yaml (%v); nothing was written", err)
	}
	c := Defaults()
	origins := map[string]string{}
	if root != nil {
		newDecoder("config.yaml", origins).decode(root, reflect.ValueOf(&c).Elem(), "", "", 0)
	}
	var errs []error
	for _, err := range validate(&c, func(string) string { return "" }) {
		var fe *FieldError
		if errors.As(err, &fe) && (fe.Key == key || strings.HasPrefix(fe.Key, key+".") || strings.HasPrefix(fe.Key, key+"[")) &&
			!strings.Contains(fe.Value, "${") {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// varRef reports whether value is only a reference to a variable,
// ${NAME}, and names it.
func varRef(value string) (string, bool) {
	name, ok := strings.CutPrefix(value, "${")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, "}")
	if !ok || name == "" || strings.ContainsAny(name, "${} ") {
		return "", false
	}
	return name, true
}

// secretNote says where a secret usually lives, naming the variable the
// provider reads when it can tell.
func secretNote(c *Config, segs []string) string {
	provider := c.Model.Provider
	if len(segs) == 3 && segs[0] == "providers" {
		provider = segs[1]
	}
	if segs[0] != "model" && segs[0] != "providers" {
		return "the key is now stored in plain text in config.yaml; the usual place for secrets is $ENVFILE (NAME=...), with ${NAME} here"
	}
	variable := "OPENROUTER_API_KEY"
	if segs[0] == "model" && c.Model.APIKeyEnv != "" {
		variable = c.Model.APIKeyEnv
	} else if def, _, _ := c.providerDef(provider); def.APIKeyEnv != "" {
		variable = def.APIKeyEnv
	} else if info, ok := LookupProvider(provider); ok && len(info.KeyEnv) > 0 {
		variable = info.KeyEnv[0]
	}
	return fmt.Sprintf("the key is now stored in plain text in config.yaml; the usual place for secrets is $ENVFILE (%s=...), where hermes finds it without any setting", variable)
}
