package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/declared"
	"github.com/hermes-go/hermes/tools/declared/openapi"
)

// maxSpecBytes bounds an OpenAPI document read from a file or URL.
const maxSpecBytes = 16 << 20

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
	data, err := readSpec(cmd.Context(), src)
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
	if err := checkDeclared(out); err != nil {
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
		path = filepath.Join(toolsDir, fileStem(f.prefix, doc.Title)+".yaml")
	}
	if err := writeNew(path, out, f.force); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %d tool(s) to %s\n", len(file.Tools), path)
	if len(file.Tools) > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "try one: hermes tools test %s --args '{...}'\n", file.Tools[0].Name)
	}
	return nil
}

// readSpec reads the document from a file or an http(s) URL.
func readSpec(ctx context.Context, src string) ([]byte, error) {
	if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
		fh, err := os.Open(src)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return io.ReadAll(io.LimitReader(fh, maxSpecBytes))
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %s", src, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxSpecBytes))
}

// checkDeclared loads data as a tools file on its own, as hermes will,
// and returns its problems.
func checkDeclared(data []byte) error {
	dir, err := os.MkdirTemp("", "hermes-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "tools.yaml"), data, 0o600); err != nil {
		return err
	}
	l := declared.NewLoader(declared.LoaderOptions{Dir: dir, Registry: tool.NewRegistry(),
		Env: func(string) (string, bool) { return "", false }})
	defer l.Close()
	if err := l.Load(); err != nil {
		return err
	}
	var errs []error
	for _, p := range l.Problems() {
		errs = append(errs, p)
	}
	return errors.Join(errs...)
}

var nonStem = regexp.MustCompile(`[^a-z0-9]+`)

// fileStem names the output file after the prefix, else the API's title.
func fileStem(prefix, title string) string {
	for _, s := range []string{prefix, title} {
		if stem := strings.Trim(nonStem.ReplaceAllString(strings.ToLower(s), "-"), "-"); stem != "" {
			return stem
		}
	}
	return "openapi"
}

// writeNew writes data to path atomically (a temporary file renamed into
// place), refusing to replace an existing file unless force.
func writeNew(path string, data []byte, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists; use --force to replace it, or -o to write elsewhere", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".import-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
