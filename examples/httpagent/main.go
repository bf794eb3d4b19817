// Command httpagent embeds hermes in an HTTP handler: each caller, known
// by a bearer token, talks to the agent over POST /ask and continues only
// their own conversations.
//
//	HTTPAGENT_TOKENS=alice:s3cret,bob:hunter2 go run ./examples/httpagent -home ~/.hermes
//	curl -H 'Authorization: Bearer s3cret' -d '{"text":"What time is it?"}' localhost:8080/ask
//
// It offers the model one tool of its own (the server's clock) and the
// todo list, nothing that runs commands: a web service's callers are not
// the machine's owner.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hermes-go/hermes"
)

func main() {
	addr := flag.String("addr", "localhost:8080", "the address to listen on")
	home := flag.String("home", "", "the hermes home (config.yaml with the model); default $HERMES_HOME or ~/.hermes")
	flag.Parse()
	tokens, err := parseTokens(os.Getenv("HTTPAGENT_TOKENS"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	clock, err := clockTool()
	if err != nil {
		log.Fatal(err)
	}
	agent, err := hermes.Open(ctx, hermes.Options{Home: *home, Tools: []*hermes.Tool{clock}})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()
	srv := &http.Server{Addr: *addr, Handler: newServer(agent, tokens), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on %s", *addr)
	log.Fatal(srv.ListenAndServe())
}

// clockTool tells the model the server's time in a time zone.
func clockTool() (*hermes.Tool, error) {
	type in struct {
		Zone string `json:"zone,omitempty" jsonschema:"an IANA time zone such as Asia/Shanghai; default UTC"`
	}
	return hermes.NewTool("server_time", "The current date and time on the server.",
		func(ctx context.Context, q in) (string, error) {
			loc := time.UTC
			if q.Zone != "" {
				var err error
				if loc, err = time.LoadLocation(q.Zone); err != nil {
					return "", fmt.Errorf("zone %q: %w", q.Zone, err)
				}
			}
			return time.Now().In(loc).Format(time.RFC3339), nil
		}, hermes.ReadOnly())
}

// parseTokens reads "user:token,user:token".
func parseTokens(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		user, token, ok := strings.Cut(strings.TrimSpace(pair), ":")
		if !ok || user == "" || len(token) < 6 {
			return nil, fmt.Errorf("HTTPAGENT_TOKENS: %q is not accepted; use user:token pairs separated by commas, tokens of 6 characters or more", pair)
		}
		out[token] = user
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("HTTPAGENT_TOKENS is empty; set user:token pairs separated by commas")
	}
	return out, nil
}
