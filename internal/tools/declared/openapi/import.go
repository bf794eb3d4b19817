package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/declared"
)

// Options choose what Import builds.
type Options struct {
	// Prefix starts every tool name ("petstore" gives petstore_list_pets)
	// and the generated environment variable names (PETSTORE_TOKEN).
	// Without it variable names come from the API title.
	Prefix string
	// Include selects operations: operationIds, globs of them ("pets*"),
	// "METHOD /path" ("GET /pets/{petId}") or "tag:NAME". Empty means
	// every operation. An entry that matches nothing is an error.
	Include []string
	// BaseURL replaces the document's servers.
	BaseURL string
	// BaseURLEnv, when set, is the name of an environment variable that
	// holds the base URL at call time, so one tools file serves several
	// machines or stages; it wins over BaseURL.
	BaseURLEnv string
}

// readOnlyMethods need no approval and may be retried freely.
var readOnlyMethods = []string{"get", "head", "options"}

// serverVar matches {name} in a server URL.
var serverVar = lazy.Regexp{Expr: `\{([^{}]+)\}`}

// Import builds one declared http tool per selected operation. The
// warnings say what a person should know before using the file: variables
// to set, operations left out and why, write operations imported.
func Import(doc *Document, opts Options) (*declared.File, []string, error) {
	if doc == nil {
		return nil, nil, errors.New("openapi: Import: document is nil")
	}
	if opts.BaseURLEnv != "" && !envName.Get().MatchString(opts.BaseURLEnv) {
		return nil, nil, fmt.Errorf("openapi: base URL variable %q is not a valid environment variable name (letters, digits, _; not starting with a digit)", opts.BaseURLEnv)
	}
	all, warnings := doc.operations()
	if len(all) == 0 {
		return nil, warnings, errors.New("openapi: the document has no operations under paths")
	}
	sel, err := selectOps(all, opts.Include)
	if err != nil {
		return nil, warnings, err
	}
	prefix := normalizePrefix(opts.Prefix)
	stem := envPrefix(doc, opts.Prefix)
	toolNames := newNames(maxToolName)
	env := map[string]string{}
	var writes []string
	file := &declared.File{}
	for _, o := range sel.ops {
		explicit := sel.explicit[o]
		if o.deprecated && !explicit {
			warnings = append(warnings, o.label()+": deprecated, skipped (name it in the include list to import it anyway)")
			continue
		}
		spec, w, err := buildTool(doc, o, opts, stem, env)
		warnings = append(warnings, w...)
		if err != nil {
			if explicit {
				return nil, warnings, fmt.Errorf("openapi: %s cannot be imported: %w", o.label(), err)
			}
			warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", o.label(), err))
			continue
		}
		if o.deprecated {
			warnings = append(warnings, o.label()+": deprecated in the API, imported because it was named")
		}
		want := cut(sanitizeName(prefix+baseName(o)), maxToolName)
		spec.Name = toolNames.unique(want)
		if spec.Name != want {
			warnings = append(warnings, fmt.Sprintf("%s: the name %s was taken, named %s", o.label(), want, spec.Name))
		}
		if !slices.Contains(readOnlyMethods, o.method) {
			writes = append(writes, spec.Name)
		}
		file.Tools = append(file.Tools, spec)
	}
	if len(file.Tools) == 0 {
		return nil, warnings, errors.New("openapi: no operation could be imported; see the warnings")
	}
	if len(writes) > 0 {
		warnings = append(warnings, fmt.Sprintf("imported %d write operation(s) (%s); approval is left unset: add approval: always to those a person should confirm",
			len(writes), strings.Join(writes, ", ")))
	}
	if list, _ := doc.root["servers"].([]any); len(list) > 1 && opts.BaseURL == "" && opts.BaseURLEnv == "" {
		warnings = append(warnings, fmt.Sprintf("the document lists %d servers; the tools call the first, %s; give a base URL or a base URL variable to call another",
			len(list), serverURL(list)))
	}
	for _, v := range slices.Sorted(maps.Keys(env)) {
		warnings = append(warnings, fmt.Sprintf("set %s: %s", v, env[v]))
	}
	return file, warnings, nil
}

// buildTool turns one operation into a tool without its name. Variables
// its URL and headers read are added to env.
func buildTool(doc *Document, o *operation, opts Options, stem string, env map[string]string) (declared.Spec, []string, error) {
	a := authFor(doc, o, stem)
	b := newBuilder(doc, o, a.headerSet())
	var warnings []string
	for _, w := range a.warnings {
		warnings = append(warnings, o.label()+": "+w)
	}
	if err := b.build(); err != nil {
		return declared.Spec{}, append(warnings, b.warnings...), err
	}
	warnings = append(warnings, b.warnings...)
	base, err := baseURL(doc, o, opts, env)
	if err != nil {
		return declared.Spec{}, warnings, err
	}
	h := b.http
	h.URL = strings.TrimRight(base, "/") + b.path
	for k, v := range a.headers {
		if h.Headers == nil {
			h.Headers = map[string]string{}
		}
		h.Headers[k] = v
	}
	for k, v := range a.query {
		if h.Query == nil {
			h.Query = map[string]string{}
		}
		h.Query[k] = v
	}
	maps.Copy(env, a.env)
	params := normalizeNumbers(b.schema()).(map[string]any)
	// Compile as the registry will, so a file that imports is a file
	// that loads.
	raw, err := json.Marshal(params)
	if err != nil {
		return declared.Spec{}, warnings, fmt.Errorf("arguments schema: %w", err)
	}
	if _, err := tool.CompileSchema(o.label(), raw); err != nil {
		return declared.Spec{}, warnings, err
	}
	spec := declared.Spec{
		Description: describe(doc, o),
		Parameters:  params,
		Idempotent:  slices.Contains(readOnlyMethods, o.method),
		HTTP:        h,
	}
	return spec, warnings, nil
}

// baseURL is where requests go: ${BaseURLEnv}, else BaseURL, else the
// first server of the operation, its path item or the document, with
// server variables set to their defaults.
func baseURL(doc *Document, o *operation, opts Options, env map[string]string) (string, error) {
	documented := serverURL(o.op["servers"])
	if documented == "" {
		documented = serverURL(o.item["servers"])
	}
	if documented == "" {
		documented = serverURL(doc.root["servers"])
	}
	switch {
	case opts.BaseURLEnv != "":
		if _, ok := env[opts.BaseURLEnv]; !ok {
			hint := "the API's base URL"
			if isAbsolute(documented) {
				hint += " (the document says " + documented + ")"
			}
			env[opts.BaseURLEnv] = hint
		}
		return "${" + opts.BaseURLEnv + "}", nil
	case opts.BaseURL != "":
		return opts.BaseURL, nil
	case isAbsolute(documented):
		return documented, nil
	case documented == "":
		return "", errors.New("the document has no servers; give a base URL (BaseURL) or the variable that holds it (BaseURLEnv)")
	}
	return "", fmt.Errorf("server URL %q is relative; give a base URL (BaseURL) or the variable that holds it (BaseURLEnv)", documented)
}

// serverURL is the URL of the first server in a servers list, variables
// replaced by their defaults.
func serverURL(v any) string {
	list, _ := v.([]any)
	if len(list) == 0 {
		return ""
	}
	s, _ := list[0].(map[string]any)
	u := str(s["url"])
	vars, _ := s["variables"].(map[string]any)
	return serverVar.Get().ReplaceAllStringFunc(u, func(m string) string {
		name := m[1 : len(m)-1]
		if vm, ok := vars[name].(map[string]any); ok {
			if d, ok := scalarString(vm["default"]); ok {
				return d
			}
		}
		return m
	})
}

func isAbsolute(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}
