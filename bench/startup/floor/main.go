// Command floor links the libraries hermes is built on (cobra, YAML, JSON,
// slog, an HTTPS client, SQLite, JSON Schema and Unicode normalization)
// and does nothing with them. Its start time is
// the floor any Go program with those abilities pays for package
// initialization and loading; bench/startup reports it beside hermes so
// that hermes's own start-up cost can be told apart from its dependencies'.
package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
	_ "modernc.org/sqlite"
)

func main() {
	cmd := &cobra.Command{Use: "floor", RunE: func(*cobra.Command, []string) error {
		// Never true when benchmarked; it keeps the libraries linked.
		if len(os.Args) > 5 {
			var n yaml.Node
			_ = yaml.Unmarshal([]byte(os.Args[2]), &n)
			out, _ := yaml.Marshal(&n)
			var v any
			_ = json.Unmarshal(out, &v)
			slog.Info("floor", "v", v)
			resp, err := (&http.Client{Transport: &http.Transport{}}).Get(os.Args[3])
			fmt.Println(resp, err)
			db, err := sql.Open("sqlite", os.Args[4])
			fmt.Println(db, err, norm.NFKC.String(os.Args[5]))
			_, err = jsonschema.NewCompiler().Compile(os.Args[5])
			fmt.Println(err)
		}
		fmt.Println("floor")
		return nil
	}}
	_ = cmd.Execute()
}
