package config

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// goccy/go-yaml's syntax tree (see yamlstream.go) is turned into
// yamlNodes here: scalars get their value, style and tag, collections
// their content, every node its position, and aliases the node they name.

// converter turns goccy's syntax tree into yamlNodes, resolving aliases as
// it goes. An anchor is known from the moment its node begins, so a node
// may refer to itself; the decoder's budget stops the loop that makes.
// On the way it notes what attachComments needs: the entries of block
// collections in document order, and which node each token belongs to.
type converter struct {
	file    string
	anchors map[string]*yamlNode
	err     error

	entries []entry
	block   *block                  // the block collection being read
	flow    *yamlNode               // the outermost flow collection being read
	owners  map[*token.Token]owner  // token → the node a comment after it belongs to
	keyOf   map[*yamlNode]*yamlNode // block collection value → its key

	positions map[*token.Token]textPos
}

// newConverter prepares the conversion of data, which lexed into tokens.
func newConverter(file string, data []byte, tokens token.Tokens) *converter {
	return &converter{file: file, anchors: map[string]*yamlNode{}, owners: map[*token.Token]owner{},
		keyOf: map[*yamlNode]*yamlNode{}, positions: tokenPositions(data, tokens)}
}

// document converts one document. A document with nothing in it (only
// comments, say) holds a null with no position, which parseYAML reads as
// no document at all while the editor keeps the comments.
func (c *converter) document(d *ast.DocumentNode) *yamlNode {
	doc := &yamlNode{Kind: documentNode, Line: 1, Column: 1}
	if d.Start != nil {
		doc.Line, doc.Column = c.pos(d.Start)
	}
	if d.Body == nil {
		doc.Content = []*yamlNode{{Kind: scalarNode, Tag: nullTag}}
		return doc
	}
	root := c.node(d.Body, props{})
	if d.Start == nil {
		doc.Line, doc.Column = root.Line, root.Column
	}
	doc.Content = []*yamlNode{root}
	return doc
}

// props are the anchor and tag written before a node.
type props struct {
	anchor, tag string
	at          *token.Token // the first of them, which is where the node starts
}

// node converts n, which carries the anchor and tag in p.
func (c *converter) node(n ast.Node, p props) *yamlNode {
	switch t := n.(type) {
	case nil:
		return c.scalar(&yamlNode{Kind: scalarNode}, p, nil)
	case *ast.AnchorNode:
		if p.at == nil {
			p.at = t.Start
		}
		p.anchor = t.Name.GetToken().Value
		return c.node(t.Value, p)
	case *ast.TagNode:
		if p.at == nil {
			p.at = t.Start
		}
		p.tag = t.Start.Value
		return c.node(t.Value, p)
	case *ast.AliasNode:
		name := t.Value.GetToken().Value
		out := &yamlNode{Kind: aliasNode, Value: name, Alias: c.anchors[name]}
		c.place(out, p, t.Start)
		c.own(t.Value.GetToken(), out, roleNode)
		if out.Alias == nil && c.err == nil {
			c.err = fmt.Errorf("%s:%d: invalid YAML: unknown anchor '%s' referenced", c.file, out.Line, name)
		}
		return out
	case *ast.MappingKeyNode:
		return c.node(t.Value, p)
	case *ast.MappingNode:
		return c.mapping(t.Values, p, t.IsFlowStyle, t.Start, t.End)
	case *ast.MappingValueNode:
		return c.mapping([]*ast.MappingValueNode{t}, p, false, t.Start, nil)
	case *ast.SequenceNode:
		return c.sequence(t, p)
	case *ast.LiteralNode:
		out := &yamlNode{Kind: scalarNode, Style: literalStyle}
		if t.Start.Type == token.FoldedType {
			out.Style = foldedStyle
		}
		if t.Value != nil {
			out.Value = t.Value.Value
			c.own(t.Value.GetToken(), out, roleNode)
		}
		return c.scalar(out, p, t.Start)
	}
	tk := n.GetToken()
	out := &yamlNode{Kind: scalarNode, Value: tk.Value}
	switch tk.Type {
	case token.DoubleQuoteType:
		out.Style = doubleQuotedStyle
	case token.SingleQuoteType:
		out.Style = singleQuotedStyle
	case token.ImplicitNullType:
		out.Value = ""
	default:
		out.Value = plainValue(tk)
	}
	return c.scalar(out, p, tk)
}

// mapping converts a block or flow mapping.
func (c *converter) mapping(pairs []*ast.MappingValueNode, p props, flow bool, start, end *token.Token) *yamlNode {
	out := c.collection(mappingNode, mapTag, p, flow, start)
	defer c.enter(out, flow, end)()
	for _, mv := range pairs {
		k := c.node(mv.Key, props{})
		if len(out.Content) == 0 && !flow && p.at == nil {
			out.Line, out.Column = k.Line, k.Column
		}
		if !flow {
			if len(out.Content) == 0 {
				c.block.col = k.Column
			}
			c.entries = append(c.entries, entry{node: k, line: k.Line, col: k.Column, block: c.block})
			c.own(mv.Start, k, roleKey)
		} else {
			c.own(mv.Start, k, roleNode)
		}
		v := c.node(mv.Value, props{})
		if !flow && v.Kind != scalarNode && v.Kind != aliasNode && v.Style&flowStyle == 0 {
			c.keyOf[v] = k
			c.checkNesting(k, v)
		}
		out.Content = append(out.Content, k, v)
	}
	return out
}

// checkNesting refuses a block mapping read as the value of key k though
// it is not indented below it. The parser reads "a: !tag" followed by
// "b: 1" that way; the file means an empty tagged value for a, and the
// closest honest answer is to say the tag lacks its value.
func (c *converter) checkNesting(k, v *yamlNode) {
	if v.Kind != mappingNode || len(v.Content) == 0 || v.Content[0].Column > k.Column || c.err != nil {
		return
	}
	what := "the anchor &" + v.Anchor
	if v.Style&taggedStyle != 0 {
		what = "the tag " + v.Tag
	}
	c.err = fmt.Errorf("%s:%d: invalid YAML: nothing follows %s", c.file, v.Line, what)
}

// sequence converts a block or flow sequence.
func (c *converter) sequence(t *ast.SequenceNode, p props) *yamlNode {
	out := c.collection(sequenceNode, seqTag, p, t.IsFlowStyle, t.Start)
	defer c.enter(out, t.IsFlowStyle, t.End)()
	if !t.IsFlowStyle && t.Start != nil {
		_, c.block.col = c.pos(t.Start)
	}
	for i, v := range t.Values {
		var dash *token.Token
		if !t.IsFlowStyle && i < len(t.Entries) && t.Entries[i] != nil {
			dash = t.Entries[i].Start
		}
		at := len(c.entries)
		if !t.IsFlowStyle {
			c.entries = append(c.entries, entry{block: c.block})
		}
		item := c.node(v, props{})
		if !t.IsFlowStyle {
			e := &c.entries[at]
			e.node, e.line, e.col = item, item.Line, c.block.col
			if dash != nil && dash.Position != nil {
				e.line, _ = c.pos(dash)
			}
			c.own(dash, item, roleDash)
		}
		out.Content = append(out.Content, item)
	}
	return out
}

// enter notes that the collection out is being read and returns the
// function that notes its end.
func (c *converter) enter(out *yamlNode, flow bool, end *token.Token) func() {
	if flow {
		outer := c.flow
		if outer == nil {
			c.flow = out
		}
		c.own(end, out, roleNode)
		return func() { c.flow = outer }
	}
	outer := c.block
	c.block = &block{col: out.Column, parent: outer}
	return func() { c.block = outer }
}

// collection starts a mapping or sequence node, registering its anchor
// before its content is read.
func (c *converter) collection(kind yamlKind, defaultTag string, p props, flow bool, start *token.Token) *yamlNode {
	out := &yamlNode{Kind: kind}
	if flow {
		out.Style = flowStyle
	}
	c.place(out, p, start)
	c.tag(out, p, defaultTag)
	return out
}

// scalar finishes a scalar node: its place, anchor and tag.
func (c *converter) scalar(out *yamlNode, p props, tk *token.Token) *yamlNode {
	c.place(out, p, tk)
	def := strTag
	if out.Style&(doubleQuotedStyle|singleQuotedStyle|literalStyle|foldedStyle) == 0 {
		def = resolveTag(out.Value)
	}
	c.tag(out, p, def)
	return out
}

// place sets where a node starts and records its anchor.
func (c *converter) place(out *yamlNode, p props, tk *token.Token) {
	if p.at != nil {
		tk = p.at
	}
	if tk != nil && tk.Position != nil {
		out.Line, out.Column = c.pos(tk)
	}
	c.own(tk, out, roleNode)
	if p.anchor != "" {
		out.Anchor = p.anchor
		c.anchors[p.anchor] = out
	}
}

// tag sets a node's tag: the one written, in short form, or def.
func (c *converter) tag(out *yamlNode, p props, def string) {
	tag := p.tag
	if strings.HasPrefix(tag, "!<") && strings.HasSuffix(tag, ">") {
		tag = tag[2 : len(tag)-1]
	}
	if tag != "" && tag != "!" {
		out.Tag = shortTag(tag)
		out.Style |= taggedStyle
		return
	}
	out.Tag = def
}
