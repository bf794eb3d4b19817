package skill

import (
	"fmt"
	"strings"
)

// Invocation returns the text of the user message that carries a skill
// the user invoked with /name [instruction]. It is a user message, not
// part of the system prompt, so the cached prompt prefix stays intact. The
// message holds the instruction, the skill's directory, its support files
// and its body. It counts as a use of the skill (Usage.UsedAt): every
// way a skill is loaded into a turn — /name in a chat or on a platform,
// a job's skills — comes through here.
func (l *Library) Invocation(name, instruction string) (string, error) {
	sk, err := l.find(name)
	if err != nil {
		return "", err
	}
	l.noteUsed(sk.Name)
	instruction = strings.TrimSpace(instruction)
	var b strings.Builder
	if instruction != "" {
		fmt.Fprintf(&b, "The user invoked the skill %q. Follow it for: %s\n\n", sk.Name, instruction)
	} else {
		fmt.Fprintf(&b, "The user invoked the skill %q. Follow it now; if it needs details the user has not given, ask for them.\n\n", sk.Name)
	}
	fmt.Fprintf(&b, "Skill directory: %s\n", sk.Dir)
	if files := sk.SupportFiles(); len(files) > 0 {
		fmt.Fprintf(&b, "Support files (read them with skill_view(name=%q, file=...) when the procedure refers to them):\n", sk.Name)
		for _, f := range files {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	fmt.Fprintf(&b, "\n<skill name=%q>\n%s\n</skill>\n", sk.Name, strings.TrimSpace(sk.Body))
	return b.String(), nil
}
