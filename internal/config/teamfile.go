package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LoadTeamFile reads a YAML file holding one team: the fields of an entry
// of teams:, plus name: (without it, the file's base name without its
// extension). The file is read strictly, since a mistyped key in a file
// given on the command line is a mistake, not a newer setting: unknown
// and repeated keys are errors. The team is checked against c's agents
// exactly as one of config.yaml's, and every error names the file. The
// file is read as written: ${VAR} in it is not replaced.
func LoadTeamFile(path string, c *Config) (name string, t Team, err error) {
	file := filepath.Base(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", Team{}, fmt.Errorf("team file: %w", err)
	}
	root, _, err := parseYAML(data, path)
	if err != nil {
		return "", Team{}, err
	}
	if root == nil {
		return "", Team{}, fmt.Errorf("%s: is empty; a team file holds one team, like roles: [collector, analyst]", path)
	}
	origins := map[string]string{}
	d := newDecoder(path, origins)
	name = strings.TrimSuffix(file, filepath.Ext(file))
	nameKey := path
	if root.Kind == yaml.MappingNode {
		rest := &yaml.Node{Kind: yaml.MappingNode, Tag: root.Tag, Line: root.Line, Column: root.Column}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value == "name" {
				if v.Kind != yaml.ScalarNode {
					d.errs = append(d.errs, &FieldError{Source: d.where(v), Key: "name", Message: kindName(v) + " is not accepted; use a single value"})
					continue
				}
				name, nameKey = v.Value, d.where(v)
				continue
			}
			rest.Content = append(rest.Content, k, v)
		}
		root = rest
	}
	d.decode(root, reflect.ValueOf(&t).Elem(), "", "", 0)
	errs := d.errs
	for _, w := range d.warns {
		errs = append(errs, errors.New(w))
	}
	if !agentName.Get().MatchString(name) {
		errs = append(errs, badValue(nameKey, "name", name,
			"is not accepted as a team name; use up to 64 lowercase letters, digits, \"-\" and \"_\", starting with a letter or digit (name: in the file, or the file's name)"))
	}
	where := func(key string) string {
		if o := origins[key]; o != "" {
			return o
		}
		if i := strings.IndexAny(key, ".["); i > 0 && origins[key[:i]] != "" {
			return origins[key[:i]]
		}
		return path
	}
	errs = append(errs, validateTeam(c, t, "", where)...)
	if len(errs) > 0 {
		return "", Team{}, errors.Join(errs...)
	}
	return name, t, nil
}
