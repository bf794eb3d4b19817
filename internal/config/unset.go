package config

import (
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// Unset removes key (a section or a value, such as "users.ana") from
// home/config.yaml, keeping the rest of the file and its comments. A key
// that is not written is an error naming it. The file is replaced
// atomically.
func Unset(home, key string) (string, error) {
	path := filepath.Join(home, "config.yaml")
	data, err := readOptional(path)
	if err != nil {
		return "", err
	}
	segs, err := splitKey(key)
	if err != nil {
		return "", err
	}
	doc, multi, err := parseDoc(data)
	if err != nil {
		return "", err
	}
	if multi {
		return "", fmt.Errorf("config.yaml holds several YAML documents; edit it by hand")
	}
	var parent *yaml.Node
	if doc != nil {
		parent = locate(doc.Content[0], configType, segs[:len(segs)-1])
	}
	i := -1
	if parent != nil && parent.Kind == yaml.MappingNode {
		i = lastKey(parent, segs[len(segs)-1])
	}
	if i < 0 {
		return "", fmt.Errorf("%s is not written in %s", key, path)
	}
	parent.Content = append(parent.Content[:i], parent.Content[i+2:]...)
	out, err := encodeNode(doc, detectIndent(data))
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(path, out, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
