package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/tool"
)

// manageTool is skill_manage, with Hermes Agent's parameters.
type manageTool struct{ lib *Library }

const manageDescription = `Create, change or delete saved skills (procedures reused across sessions).
Actions:
- create: a new skill; content is the full SKILL.md (front matter with name and description, then sections When to Use, Procedure, Pitfalls, Verification); category optional (e.g. "devops").
- patch: replace old_string with new_string in SKILL.md, or in file_path; old_string must match exactly once. Prefer this for fixes.
- edit: replace the whole SKILL.md with content.
- delete: remove the skill.
- write_file: write file_content to file_path under references/, templates/, scripts/ or assets/.
- remove_file: delete file_path.
Save a skill after a complex task (5+ tool calls) or a tricky fix; patch one at once when it proves outdated or wrong.`

func (t *manageTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "skill_manage",
		Description: manageDescription,
		Parameters: json.RawMessage(`{"type":"object","properties":{
  "action":{"type":"string","enum":["create","patch","edit","delete","write_file","remove_file"]},
  "name":{"type":"string","description":"Skill name: lowercase letters, digits, '-', '.', '_' (e.g. \"deploy-checklist\")."},
  "content":{"type":"string","description":"Full SKILL.md text, for create and edit."},
  "category":{"type":"string","description":"Category directory for create, e.g. \"devops\"."},
  "old_string":{"type":"string","description":"Exact text to replace, for patch; include enough context to be unique."},
  "new_string":{"type":"string","description":"Replacement text, for patch (may be empty to delete)."},
  "file_path":{"type":"string","description":"Support file path relative to the skill, e.g. \"references/api.md\", for write_file, remove_file and patch."},
  "file_content":{"type":"string","description":"Content of the support file, for write_file."}},
  "required":["action","name"]}`),
		Toolset: Toolset,
	}
}

type manageArgs struct {
	Action      string  `json:"action"`
	Name        string  `json:"name"`
	Content     *string `json:"content"`
	Category    string  `json:"category"`
	OldString   *string `json:"old_string"`
	NewString   *string `json:"new_string"`
	FilePath    string  `json:"file_path"`
	FileContent *string `json:"file_content"`
}

func (t *manageTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	if tool.InvocationFrom(ctx).User != "" {
		// Skills are shared: every user's prompt lists them. One user
		// writing a skill would be writing into everyone's prompt.
		return nil, tool.Errorf(tool.CodeDenied, "skills are the owner's and shared by every user: they cannot be written in a user's turn; tell the user what you would save, or ask the owner")
	}
	var a manageArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	name := strings.TrimSpace(a.Name)
	var (
		path string
		err  error
		verb string
	)
	switch a.Action {
	case "create":
		if a.Content == nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "content is missing; create needs the full SKILL.md text")
		}
		path, err = t.lib.Create(ctx, name, a.Category, *a.Content)
		verb = "created"
	case "edit":
		if a.Content == nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "content is missing; edit needs the full new SKILL.md text")
		}
		path, err = t.lib.Edit(ctx, name, *a.Content)
		verb = "rewritten"
	case "patch":
		if a.OldString == nil || *a.OldString == "" {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "old_string is missing or empty; patch needs the exact text to replace")
		}
		if a.NewString == nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "new_string is missing; give the replacement text (empty to delete old_string)")
		}
		path, err = t.lib.Patch(ctx, name, a.FilePath, *a.OldString, *a.NewString)
		verb = "patched"
	case "delete":
		path, err = t.lib.Delete(ctx, name)
		verb = "deleted"
	case "write_file":
		if a.FileContent == nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "file_content is missing; write_file needs the file's text")
		}
		path, err = t.lib.WriteFile(ctx, name, a.FilePath, *a.FileContent)
		verb = "written"
	case "remove_file":
		path, err = t.lib.RemoveFile(ctx, name, a.FilePath)
		verb = "removed"
	default:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "action %q is not accepted; use create, patch, edit, delete, write_file or remove_file", a.Action)
	}
	if err != nil {
		return nil, err
	}
	t.lib.log.Info("skill changed", "tool", "skill_manage", "action", a.Action, "skill", name,
		"path", path, "session_id", tool.InvocationFrom(ctx).SessionID)
	return map[string]any{"message": fmt.Sprintf("skill %q %s", name, verb), "path": path}, nil
}
