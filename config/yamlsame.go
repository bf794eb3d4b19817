package config

// sameYAML reports whether two documents hold the same data: the same
// keys in the same order, the same values with the same types. Comments,
// quoting and layout do not count; aliases are followed, within a budget
// so that a document built to explode cannot stall the comparison. A
// mapping that repeats a key is never the same as anything, so an edit of
// such a file always goes through the tree.
func sameYAML(a, b []byte) bool {
	da, _, err := parseDocument(a, "config.yaml")
	if err != nil || da == nil {
		return false
	}
	db, _, err := parseDocument(b, "config.yaml")
	if err != nil || db == nil {
		return false
	}
	budget := maxNodes
	return sameNode(da.Content[0], db.Content[0], &budget, 0)
}

func sameNode(a, b *yamlNode, budget *int, depth int) bool {
	*budget--
	if *budget < 0 || depth > maxDepth {
		return false
	}
	for a.Kind == aliasNode && a.Alias != nil {
		a = a.Alias
	}
	for b.Kind == aliasNode && b.Alias != nil {
		b = b.Alias
	}
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	switch a.Kind {
	case scalarNode:
		return a.Tag == b.Tag && a.Value == b.Value
	case mappingNode:
		if repeatsKey(a) || repeatsKey(b) {
			return false
		}
	case aliasNode:
		return false
	}
	if a.Tag != b.Tag {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i], budget, depth+1) {
			return false
		}
	}
	return true
}

// repeatsKey reports whether mapping m has two scalar keys alike.
func repeatsKey(m *yamlNode) bool {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != scalarNode {
			continue
		}
		if seen[k.Value] {
			return true
		}
		seen[k.Value] = true
	}
	return false
}
