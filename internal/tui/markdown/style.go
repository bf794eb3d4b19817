package markdown

import "strings"

// Style says how each element of a reply looks, as SGR parameters (the
// numbers between "ESC [" and "m", such as "1;36" for bold cyan). An empty
// field draws the element without color; emphasis, strong, strikethrough and
// code spans then keep their markdown marks (*, **, ~~, `) so that a
// terminal without color still shows them.
type Style struct {
	Heading   string // headings below the first level, with their # marks
	Heading1  string // first-level headings
	Strong    string
	Emph      string
	Strike    string
	Code      string // code spans
	Link      string // a link's text
	URL       string // the address shown after a link's text
	Quote     string // the bar in front of a block quote
	Marker    string // list bullets, numbers and task boxes
	Rule      string // horizontal rules
	Border    string // table borders
	TableHead string // a table's header cells
	CodeText  string // code block text outside any highlighted token
	CodeLang  string // the language label above a code block
	Keyword   string
	String    string
	Comment   string
	Number    string
	Escape    string // control characters shown as visible symbols
}

// DefaultStyle returns the colors for a terminal with a dark or light
// background: only the 16 base colors, which every theme maps to readable
// ones, plus bold, italic, underline, dim and reverse.
func DefaultStyle() Style {
	return Style{
		Heading:   "1;34",
		Heading1:  "1;4;35",
		Strong:    "1",
		Emph:      "3",
		Strike:    "9",
		Code:      "33",
		Link:      "4;36",
		URL:       "2",
		Quote:     "2",
		Marker:    "36",
		Rule:      "2",
		Border:    "2",
		TableHead: "1",
		CodeText:  "",
		CodeLang:  "2;3",
		Keyword:   "35",
		String:    "32",
		Comment:   "2;3",
		Number:    "33",
		Escape:    "7",
	}
}

// NoColor returns the style with no SGR at all, for TERM=dumb, NO_COLOR
// and output that is not a terminal.
func NoColor() Style { return Style{} }

// StyleFromEnv picks DefaultStyle or NoColor the way terminal programs
// agree to: NO_COLOR set to anything non-empty, or TERM empty or "dumb",
// means no color. getenv is os.Getenv in the program and a map in tests.
func StyleFromEnv(getenv func(string) string) Style {
	if getenv("NO_COLOR") != "" {
		return NoColor()
	}
	if term := getenv("TERM"); term == "" || term == "dumb" {
		return NoColor()
	}
	return DefaultStyle()
}

// attr is a set of the elements a character belongs to; nested elements
// (a link inside strong text inside a heading) combine their SGR.
type attr uint32

const (
	aHeading attr = 1 << iota
	aHeading1
	aStrong
	aEmph
	aStrike
	aCode
	aLink
	aURL
	aQuote
	aMarker
	aRule
	aBorder
	aTableHead
	aCodeText
	aCodeLang
	aKeyword
	aString
	aComment
	aNumber
	aEscape
	attrCount = iota
)

// field returns the SGR parameters of the element bit a.
func (s *Style) field(a attr) string {
	switch a {
	case aHeading:
		return s.Heading
	case aHeading1:
		return s.Heading1
	case aStrong:
		return s.Strong
	case aEmph:
		return s.Emph
	case aStrike:
		return s.Strike
	case aCode:
		return s.Code
	case aLink:
		return s.Link
	case aURL:
		return s.URL
	case aQuote:
		return s.Quote
	case aMarker:
		return s.Marker
	case aRule:
		return s.Rule
	case aBorder:
		return s.Border
	case aTableHead:
		return s.TableHead
	case aCodeText:
		return s.CodeText
	case aCodeLang:
		return s.CodeLang
	case aKeyword:
		return s.Keyword
	case aString:
		return s.String
	case aComment:
		return s.Comment
	case aNumber:
		return s.Number
	case aEscape:
		return s.Escape
	}
	return ""
}

// sgr returns the SGR parameters for the set a, the fields of its elements
// joined in a fixed order, or "" when none of them has a style.
func (s *Style) sgr(a attr) string {
	var b strings.Builder
	for i := range attrCount {
		bit := attr(1) << i
		if a&bit == 0 {
			continue
		}
		if f := s.field(bit); f != "" {
			if b.Len() > 0 {
				b.WriteByte(';')
			}
			b.WriteString(f)
		}
	}
	return b.String()
}
