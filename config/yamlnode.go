package config

import "strings"

// The configuration code works on its own tree of YAML nodes rather than
// on a library's: the decoder needs every node's line for its messages, the
// editor needs comments, styles and anchors to write a file back the way it
// was, and keeping the tree here keeps both independent of the parser that
// fills it (see yamlparse.go) and of how that parser models comments.

// yamlKind is the shape of a node.
type yamlKind uint8

const (
	documentNode yamlKind = iota + 1
	sequenceNode
	mappingNode
	scalarNode
	aliasNode
)

// yamlStyle records how a node was written, so that it is written back the
// same way.
type yamlStyle uint8

const (
	taggedStyle       yamlStyle = 1 << iota // an explicit tag such as !!str was written
	doubleQuotedStyle                       // "text"
	singleQuotedStyle                       // 'text'
	literalStyle                            // |
	foldedStyle                             // >
	flowStyle                               // {a: b} or [a, b]
)

// yamlNode is one node of a YAML document.
type yamlNode struct {
	Kind  yamlKind
	Style yamlStyle
	// Tag is the node's type in short form: "!!str", "!!int", "!!null",
	// "!!map", "!!merge" for the "<<" key, or a custom tag as written.
	Tag string
	// Value is a scalar's text after quoting and escapes are undone, or
	// the anchor name an alias refers to.
	Value string
	// Anchor is the name after "&" on this node, if any.
	Anchor string
	// Alias is the node an alias refers to.
	Alias *yamlNode
	// Content holds a document's root, a sequence's items, or a mapping's
	// keys and values alternately.
	Content []*yamlNode
	// HeadComment is the comment block above the node, LineComment the
	// comment at the end of its line, FootComment the block after it; each
	// keeps its "#" markers and has no final newline.
	HeadComment string
	LineComment string
	FootComment string
	// Line and Column (both from 1) are where the node starts, its anchor
	// or tag included.
	Line   int
	Column int
}

// Short forms of the tags the configuration code looks at.
const (
	nullTag      = "!!null"
	boolTag      = "!!bool"
	strTag       = "!!str"
	intTag       = "!!int"
	floatTag     = "!!float"
	timestampTag = "!!timestamp"
	seqTag       = "!!seq"
	mapTag       = "!!map"
	binaryTag    = "!!binary"
	mergeTag     = "!!merge"
)

// longTagPrefix is how the standard tags are spelled in full.
const longTagPrefix = "tag:yaml.org,2002:"

// shortTag turns "tag:yaml.org,2002:str" into "!!str"; other tags are
// returned as given.
func shortTag(tag string) string {
	if rest, ok := strings.CutPrefix(tag, longTagPrefix); ok {
		return "!!" + rest
	}
	return tag
}

// longTag is the inverse of shortTag.
func longTag(tag string) string {
	if rest, ok := strings.CutPrefix(tag, "!!"); ok {
		return longTagPrefix + rest
	}
	return tag
}
