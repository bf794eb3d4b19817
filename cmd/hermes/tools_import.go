package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/tools/declared"
	"github.com/hermes-go/hermes/internal/tools/declared/openapi"
)

type importFlags struct {
	prefix, baseURL, baseURLEnv, out string
	include                          []string
	force                            bool
}

func newToolsImportCmd(a *cli) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import-openapi SPEC",
		Short: "Write declared http tools for the operations of an OpenAPI 3 document",
		Long: `Read an OpenAPI 3.0 or 3.1 document (a file or an http(s) URL, JSON or
YAML) and write one declared http tool per chosen operation to
$HERMES_HOME/tools/<name>.yaml: parameters and request bodies become the
tool's JSON Schema, summary and description its description, servers its
base URL, security schemes headers that read ${ENV} variables.

The file is checked the way hermes loads it before it is written, and an
existing file is kept unless --force. Read it, set the variables it names
in $HERMES_HOME/.env, and try a tool with hermes tools test.

  hermes tools import-openapi ./petstore.yaml --prefix pet --include 'listPets,GET /pets/{petId}'
  hermes tools import-openapi https://api.internal/openapi.json --include tag:orders --base-url-env ORDERS_API`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			return importOpenAPI(cmd, filepath.Join(l.Paths.Home, "tools"), args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.prefix, "prefix", "", "start every tool name with this (and name the file after it)")
	fl.StringSliceVar(&f.include, "include", nil, "operations to import: operationIds, globs (pets*), 'METHOD /path' or tag:NAME; comma-separated or repeated (default: all)")
	fl.StringVar(&f.baseURL, "base-url", "", "base URL instead of the document's servers")
	fl.StringVar(&f.baseURLEnv, "base-url-env", "", "read the base URL from this variable when a tool runs")
	fl.StringVarP(&f.out, "output", "o", "", "file to write (default $HERMES_HOME/tools/<prefix or title>.yaml; - for stdout)")
	fl.BoolVar(&f.force, "force", false, "replace the output file when it exists")
	return cmd
}

func importOpenAPI(cmd *cobra.Command, toolsDir, src string, f importFlags) error {
	data, err := openapi.Read(cmd.Context(), src)
	if err != nil {
		return err
	}
	doc, err := openapi.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	file, warnings, err := openapi.Import(doc, openapi.Options{Prefix: f.prefix, Include: f.include, BaseURL: f.baseURL, BaseURLEnv: f.baseURLEnv})
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	out, err := openapi.MarshalHeader(file, openapi.HeaderFor(doc, src))
	if err != nil {
		return err
	}
	if err := declared.Check(out); err != nil {
		return fmt.Errorf("the tools made from %s do not load (please report this): %w", src, err)
	}
	errOut := cmd.ErrOrStderr()
	for _, w := range warnings {
		fmt.Fprintln(errOut, "note:", w)
	}
	if f.out == "-" {
		_, err := cmd.OutOrStdout().Write(out)
		return err
	}
	path := f.out
	if path == "" {
		path = filepath.Join(toolsDir, openapi.FileStem(f.prefix, doc.Title)+".yaml")
	}
	if err := atomicfile.WriteNew(path, out, f.force); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w; use --force to replace it, or -o to write elsewhere", err)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %d tool(s) to %s\n", len(file.Tools), path)
	if len(file.Tools) > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "try one: hermes tools test %s --args '{...}'\n", file.Tools[0].Name)
	}
	return nil
}
