package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A node tree is written out in two steps: encodeYAML turns it into a
// stream of events (as a YAML parser would report them), and the emitter
// in yamlemit.go lays the events out as text. The layout is that of
// libyaml's emitter, the one config.yaml files have always been written
// with, so a file hermes rewrites looks as it did before.

// scalarKind is how a scalar is written.
type scalarKind uint8

const (
	anyScalar scalarKind = iota
	plainScalar
	singleQuotedScalar
	doubleQuotedScalar
	literalScalar
	foldedScalar
)

type eventKind uint8

const (
	docStartEvent eventKind = iota + 1
	docEndEvent
	aliasEvent
	scalarEvent
	seqStartEvent
	seqEndEvent
	mapStartEvent
	mapEndEvent
	streamEndEvent
)

// event is one step of the stream; comments ride on the events they are
// written beside.
type event struct {
	kind     eventKind
	anchor   string
	tag      string // in full ("tag:yaml.org,2002:str"); empty when implicit
	value    string
	implicit bool // the tag may be left out
	style    scalarKind
	flow     bool
	head     string
	line     string
	foot     string
	tail     string
}

// encodeYAML writes n (a document, or any node as the root of one) as
// YAML with the given indentation.
func encodeYAML(n *yamlNode, indent int) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(emitError); ok {
				out, err = nil, e
				return
			}
			panic(r)
		}
	}()
	var evs []event
	if n.Kind == documentNode {
		evs = appendEvents(evs, n, "")
	} else {
		evs = append(evs, event{kind: docStartEvent, implicit: true})
		evs = appendEvents(evs, n, "")
		evs = append(evs, event{kind: docEndEvent, implicit: true})
	}
	evs = append(evs, event{kind: streamEndEvent})
	e := newEmitter(indent)
	e.run(evs)
	return e.buf, nil
}

// emitError is raised (as a panic caught by encodeYAML) when a tree cannot
// be written, such as an anchor name YAML cannot spell.
type emitError string

func (e emitError) Error() string { return "yaml: " + string(e) }

// appendEvents adds the events of n. tail is the foot comment of the key
// before n, which is written once that key's whole value is out.
func appendEvents(evs []event, n *yamlNode, tail string) []event {
	tag, forceQuoting := implicitTag(n)
	switch n.Kind {
	case documentNode:
		evs = append(evs, event{kind: docStartEvent, implicit: true, head: n.HeadComment})
		for _, c := range n.Content {
			evs = appendEvents(evs, c, "")
		}
		return append(evs, event{kind: docEndEvent, implicit: true, foot: n.FootComment})
	case sequenceNode:
		evs = append(evs, event{kind: seqStartEvent, anchor: n.Anchor, tag: longTag(tag), implicit: tag == "",
			flow: n.Style&flowStyle != 0, head: n.HeadComment})
		for _, c := range n.Content {
			evs = appendEvents(evs, c, "")
		}
		return append(evs, event{kind: seqEndEvent, line: n.LineComment, foot: n.FootComment})
	case mappingNode:
		evs = append(evs, event{kind: mapStartEvent, anchor: n.Anchor, tag: longTag(tag), implicit: tag == "",
			flow: n.Style&flowStyle != 0, head: n.HeadComment, tail: tail})
		var keyTail string
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			foot := k.FootComment
			if foot != "" {
				cp := *k
				cp.FootComment = ""
				k = &cp
			}
			evs = appendEvents(evs, k, keyTail)
			keyTail = foot
			evs = appendEvents(evs, n.Content[i+1], "")
		}
		return append(evs, event{kind: mapEndEvent, tail: keyTail, line: n.LineComment, foot: n.FootComment})
	case aliasNode:
		return append(evs, event{kind: aliasEvent, anchor: n.Value, head: n.HeadComment, line: n.LineComment, foot: n.FootComment})
	case scalarNode:
		value := n.Value
		if !utf8.ValidString(value) {
			panic(emitError(fmt.Sprintf("cannot marshal invalid UTF-8 data as %s", shortTag(n.Tag))))
		}
		style := plainScalar
		switch {
		case n.Style&doubleQuotedStyle != 0:
			style = doubleQuotedScalar
		case n.Style&singleQuotedStyle != 0:
			style = singleQuotedScalar
		case n.Style&literalStyle != 0:
			style = literalScalar
		case n.Style&foldedStyle != 0:
			style = foldedScalar
		case strings.Contains(value, "\n"):
			style = literalScalar
		case forceQuoting:
			style = doubleQuotedScalar
		}
		return append(evs, event{kind: scalarEvent, anchor: n.Anchor, tag: longTag(tag), implicit: tag == "", value: value,
			style: style, head: n.HeadComment, line: n.LineComment, foot: n.FootComment, tail: tail})
	}
	panic(emitError(fmt.Sprintf("cannot encode node with unknown kind %d", n.Kind)))
}

// implicitTag is the tag to write for n: empty when reading the node back
// gives it anyway. forceQuoting is set for a string that would read as
// another type if written plain, such as "123" or "true".
func implicitTag(n *yamlNode) (tag string, forceQuoting bool) {
	tag = n.Tag
	if tag == "" || n.Style&taggedStyle != 0 {
		return tag, false
	}
	stag := shortTag(tag)
	switch n.Kind {
	case scalarNode:
		if stag == strTag && n.Style&(singleQuotedStyle|doubleQuotedStyle|literalStyle|foldedStyle) != 0 {
			return "", false
		}
		if rtag := resolveTag(n.Value); rtag == stag {
			return "", false
		} else if stag == strTag {
			return "", true
		}
	case mappingNode:
		if stag == mapTag {
			return "", false
		}
	case sequenceNode:
		if stag == seqTag {
			return "", false
		}
	}
	return tag, false
}
