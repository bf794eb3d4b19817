package compress

import (
	"unicode"

	"github.com/hermes-go/hermes/internal/llm"
)

// scripts are the writing systems detectLanguage tells apart, with the
// name given to the summarizer. Kana is checked before Han because
// Japanese text mixes both.
var scripts = []struct {
	table *unicode.RangeTable
	name  string
}{
	{unicode.Hiragana, "Japanese (kana and kanji)"},
	{unicode.Katakana, "Japanese (kana and kanji)"},
	{unicode.Hangul, "Korean (Hangul script)"},
	{unicode.Han, "Chinese (Han script)"},
	{unicode.Cyrillic, "a Cyrillic-script language such as Russian"},
	{unicode.Arabic, "an Arabic-script language such as Arabic"},
	{unicode.Hebrew, "Hebrew"},
	{unicode.Devanagari, "a Devanagari-script language such as Hindi"},
	{unicode.Thai, "Thai"},
	{unicode.Greek, "Greek"},
	{unicode.Latin, "a Latin-script language (English unless the user's messages are in another one)"},
}

// detectLanguage names the dominant script of the user's messages, or ""
// when they hold no letters. Japanese wins over Chinese as soon as kana
// make up a tenth of the CJK letters, since Japanese writes with both.
func detectLanguage(msgs []llm.Message) string {
	counts := make([]int, len(scripts))
	for _, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, r := range m.Text() {
			if !unicode.IsLetter(r) {
				continue
			}
			for i, s := range scripts {
				if unicode.Is(s.table, r) {
					counts[i]++
					break
				}
			}
		}
	}
	kana, han := counts[0]+counts[1], counts[3]
	if kana > 0 && kana*10 >= kana+han {
		counts[0], counts[1], counts[3] = kana+han, 0, 0
	}
	best := -1
	for i, n := range counts {
		// CJK letters carry a word's worth of meaning each; weigh them so
		// that a Chinese message with some English names still counts as
		// Chinese.
		if i <= 3 {
			n *= 3
		}
		if n > 0 && (best < 0 || n > weight(best, counts)) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return scripts[best].name
}

// weight is the weighted count of script i, as in detectLanguage.
func weight(i int, counts []int) int {
	if i <= 3 {
		return counts[i] * 3
	}
	return counts[i]
}
