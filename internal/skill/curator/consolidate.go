package curator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/skill"
)

// Bounds on what consolidation sends and takes: each skill's body is cut
// to maxBodyChars and the whole to maxPromptChars (the skills beyond it
// wait for a later run), so the request fits a small model's window; an
// answer longer than maxAnswerChars is refused unread.
const (
	maxBodyChars   = 4_000
	maxPromptChars = 60_000
	maxAnswerChars = 400_000
	maxMerges      = 20
	answerTokens   = 16_384
)

// consolidateSystem frames the call: the model proposes, hermes checks and
// applies.
const consolidateSystem = `You curate the library of skills (SKILL.md procedures) an AI agent wrote for itself. You find skills that are near-duplicates — the same procedure or the same narrow topic written twice — and write, for each group, one skill that keeps everything useful from all of them. You never merge skills that merely share a theme, and you never invent steps.`

// consolidateAsk is the instruction after the skills.
const consolidateAsk = `Answer with JSON only, in this shape:
{"merges": [{"sources": ["skill-a", "skill-b"], "name": "merged-name", "category": "optional-category", "content": "---\nname: merged-name\ndescription: ...\n---\n# ...full Markdown body..."}]}
Rules: each merge lists two or more of the skill names above as sources; a skill appears in at most one merge; name is lowercase letters, digits, '.', '_' and '-' (it may be one of the sources' names); content is the complete SKILL.md whose front matter name equals name. If no skills are near-duplicates, answer {"merges": []}.`

// consolidate asks the model for merges of near-duplicates among active,
// checks each, and applies them unless this is a dry run. A malformed
// answer changes nothing and is reported.
func consolidate(ctx context.Context, o Options, rep *Report, active []candidate) {
	switch {
	case o.Model.Provider == nil:
		rep.Consolidation = "not done: no model is configured (model: or auxiliary.curator:)"
		return
	case len(active) < 2:
		rep.Consolidation = fmt.Sprintf("not needed: %d curated skill(s)", len(active))
		return
	}
	prompt, sent := consolidatePrompt(active)
	answer, err := ask(ctx, o.Model, prompt)
	if err != nil {
		rep.Consolidation = "failed: " + err.Error()
		rep.Errors = append(rep.Errors, "consolidation: "+err.Error())
		return
	}
	plans, err := parseMerges(answer)
	if err != nil {
		rep.Consolidation = "nothing merged: the model's answer was refused"
		rep.Rejected = append(rep.Rejected, Rejected{Why: err.Error()})
		return
	}
	rep.Consolidation = fmt.Sprintf("asked the model about %d skill(s); it proposed %d merge(s)", len(sent), len(plans))
	allowed := map[string]bool{}
	for _, name := range sent {
		allowed[name] = true
	}
	used := map[string]bool{}
	for _, p := range plans {
		if why := planProblem(p, allowed, used); why != "" {
			rep.Rejected = append(rep.Rejected, Rejected{Sources: p.Sources, Name: p.Name, Why: why})
			continue
		}
		sk, err := o.Library.CheckMerge(p)
		if err != nil {
			rep.Rejected = append(rep.Rejected, Rejected{Sources: p.Sources, Name: p.Name, Why: err.Error()})
			continue
		}
		m := Merged{Sources: p.Sources, Name: p.Name, Category: sk.Category, Description: sk.Description, Content: p.Content}
		if !o.DryRun {
			done, err := o.Library.ApplyMerge(p)
			if err != nil {
				rep.Rejected = append(rep.Rejected, Rejected{Sources: p.Sources, Name: p.Name, Why: err.Error()})
				continue
			}
			m.ID = done.ID
			o.Logger.Info("skills merged", "into", p.Name, "sources", strings.Join(p.Sources, ","), "merge", done.ID)
		}
		for _, s := range p.Sources {
			used[s] = true
		}
		rep.Merges = append(rep.Merges, m)
	}
}

// planProblem checks what the library cannot: that the merge lists only
// skills this run curates and offered the model, none twice.
func planProblem(p skill.MergePlan, allowed, used map[string]bool) string {
	for _, s := range p.Sources {
		switch {
		case !allowed[s]:
			return fmt.Sprintf("the merge lists %q, which is not one of the curated skills offered", s)
		case used[s]:
			return fmt.Sprintf("skill %q is in an earlier merge already", s)
		}
	}
	return ""
}

// consolidatePrompt lists the skills, each with its description and body,
// within the size bound; it returns the names it sent.
func consolidatePrompt(active []candidate) (string, []string) {
	var b strings.Builder
	var sent []string
	b.WriteString("The skills:\n\n")
	for _, c := range active {
		body := strings.TrimSpace(c.sk.Body)
		if r := []rune(body); len(r) > maxBodyChars {
			body = string(r[:maxBodyChars]) + "\n[…cut]"
		}
		entry := fmt.Sprintf("<skill name=%q category=%q>\ndescription: %s\n\n%s\n</skill>\n\n", c.sk.Name, c.sk.Category, oneLine(c.sk.Description), body)
		if b.Len()+len(entry) > maxPromptChars {
			break
		}
		b.WriteString(entry)
		sent = append(sent, c.sk.Name)
	}
	b.WriteString(consolidateAsk)
	return b.String(), sent
}

// ask sends the prompt and returns the answer's text.
func ask(ctx context.Context, m Model, prompt string) (string, error) {
	temp := 0.0
	resp, err := llm.Generate(ctx, m.Provider, &llm.Request{
		Model:       m.Name,
		Messages:    []llm.Message{llm.SystemMessage(consolidateSystem), llm.UserMessage(prompt)},
		MaxTokens:   answerTokens,
		Temperature: &temp,
		NoStream:    true,
	})
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// parseMerges reads the model's answer: the JSON object, with or without a
// code fence or text around it.
func parseMerges(answer string) ([]skill.MergePlan, error) {
	if len(answer) > maxAnswerChars {
		return nil, fmt.Errorf("the model's answer is %d characters; at most %d are read", len(answer), maxAnswerChars)
	}
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if start < 0 || end < start {
		return nil, fmt.Errorf("the model's answer holds no JSON object: %q", clip(answer, 120))
	}
	var out struct {
		Merges *[]skill.MergePlan `json:"merges"`
	}
	if err := json.Unmarshal([]byte(answer[start:end+1]), &out); err != nil {
		return nil, fmt.Errorf("the model's answer is not the JSON asked for: %v", err)
	}
	if out.Merges == nil {
		return nil, fmt.Errorf("the model's answer has no \"merges\" list")
	}
	if len(*out.Merges) > maxMerges {
		return nil, fmt.Errorf("the model proposed %d merges; at most %d are taken in one run", len(*out.Merges), maxMerges)
	}
	return *out.Merges, nil
}

// oneLine folds s onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip shortens s to n runes for a message.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
