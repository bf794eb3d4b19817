package markdown

import "strings"

// lexer describes a language to highlight: its keywords (space-separated,
// with a space at each end), comment and string syntax.
type lexer struct {
	keywords     string
	foldCase     bool // SQL: keywords in any case
	line1, line2 string
	blockOpen    string
	blockClose   string
	quotes       string
	triple       bool // """ and ''' strings
	yamlKeys     bool
}

// isKeyword reports whether word is one of the language's keywords.
func (l *lexer) isKeyword(word string) bool {
	if l.foldCase {
		word = strings.ToLower(word)
	}
	return strings.Contains(l.keywords, " "+word+" ")
}

// lexerFor returns the lexer for a code fence's language name or one of its
// usual aliases. The table is small on purpose: keywords, strings, comments
// and numbers of the languages replies use most, not a full grammar.
func lexerFor(lang string) (lexer, bool) {
	const cKeywords = " auto break case char const continue default do double else enum extern float for goto if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while bool true false NULL nullptr class namespace template typename public private protected virtual new delete this using include define ifdef ifndef endif pragma "
	switch lang {
	case "go", "golang":
		return lexer{keywords: " break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var true false nil iota any error string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr byte rune float32 float64 bool make new len cap append panic recover ",
			line1: "//", blockOpen: "/*", blockClose: "*/", quotes: "\"'`"}, true
	case "python", "py", "python3":
		return lexer{keywords: " False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self print ",
			line1: "#", quotes: "\"'", triple: true}, true
	case "javascript", "js", "jsx", "mjs", "typescript", "ts", "tsx":
		return lexer{keywords: " async await break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield interface type enum implements readonly private public protected as from any string number boolean ",
			line1: "//", blockOpen: "/*", blockClose: "*/", quotes: "\"'`"}, true
	case "sh", "bash", "shell", "zsh", "console", "shellsession":
		return lexer{keywords: " if then else elif fi for while until do done case esac in function return local export readonly unset set echo cd exit source alias sudo ",
			line1: "#", quotes: "\"'"}, true
	case "json", "jsonc", "json5":
		return lexer{keywords: " true false null ", line1: "//", blockOpen: "/*", blockClose: "*/", quotes: "\""}, true
	case "yaml", "yml":
		return lexer{keywords: " true false null yes no on off ", line1: "#", quotes: "\"'", yamlKeys: true}, true
	case "sql", "postgresql", "mysql", "sqlite":
		return lexer{keywords: " select from where and or not insert into values update set delete create table index view drop alter add column primary key foreign references join left right inner outer full on as group by order having limit offset union all distinct case when then else end null is in like between exists begin commit rollback transaction returning with default unique check constraint integer int text varchar char boolean real float date timestamp count sum avg min max ",
			foldCase: true, line1: "--", blockOpen: "/*", blockClose: "*/", quotes: "'\""}, true
	case "rust", "rs":
		return lexer{keywords: " as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Some None Result Ok Err Box ",
			line1: "//", blockOpen: "/*", blockClose: "*/", quotes: "\""}, true
	case "c", "h", "cpp", "c++", "cc", "hpp", "cxx":
		return lexer{keywords: cKeywords, line1: "//", blockOpen: "/*", blockClose: "*/", quotes: "\"'"}, true
	}
	return lexer{}, false
}
