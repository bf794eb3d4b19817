package mcp

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// TestEverything runs server-everything's tools over both transports.
func TestEverything(t *testing.T) {
	stdio := everythingStdio(t)
	stdio.Env = map[string]string{"EVERYTHING_MARK": "from-config"}
	http := ServerConfig{URL: everythingHTTP(t), Enabled: true, Headers: map[string]string{"X-Hermes-Test": "1"}}
	m, reg, logs := startManager(t, map[string]ServerConfig{"everything": stdio, "web": http},
		"OPENAI_API_KEY=sk-must-not-leak", "LANG=C.UTF-8")
	for _, server := range []string{"everything", "web"} {
		if st := status(t, m, server); st.State != StateConnected || st.Tools == 0 {
			t.Fatalf("%s: status %+v, want connected with tools", server, st)
		}
	}
	if st := status(t, m, "web"); st.Transport != TransportHTTP {
		t.Errorf("web transport = %q, want http", st.Transport)
	}

	for _, server := range []string{"everything", "web"} {
		t.Run(server, func(t *testing.T) {
			name := func(tool string) string { return "mcp__" + server + "__" + tool }
			t.Run("tools", func(t *testing.T) {
				for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-env"} {
					if !offered(reg, name(want)) {
						t.Errorf("%s is not offered", name(want))
					}
				}
				echo, ok := reg.Get(name("echo"))
				if !ok {
					t.Fatal("echo is not registered")
				}
				spec := echo.Spec()
				if spec.Description != "Echoes back the input string" || spec.Toolset != "mcp-"+server ||
					!spec.ParallelSafe || !spec.Idempotent || spec.Timeout != DefaultTimeout {
					t.Errorf("echo spec = %+v", spec)
				}
				if !strings.Contains(string(spec.Parameters), `"message"`) {
					t.Errorf("echo parameters = %s, want the server's schema", spec.Parameters)
				}
				if toggle, _ := reg.Get(name("toggle-simulated-logging")); toggle == nil || toggle.Spec().ParallelSafe {
					t.Errorf("toggle-simulated-logging is missing or parallel-safe, though not read-only")
				}
			})
			t.Run("echo", func(t *testing.T) {
				o := dispatch(t, reg, name("echo"), `{"message":"hello hermes"}`)
				if o.Content != `{"status":"ok","data":"Echo: hello hermes"}` {
					t.Errorf("echo = %s", o.Content)
				}
			})
			t.Run("sum", func(t *testing.T) {
				o := dispatch(t, reg, name("get-sum"), `{"a": 19, "b": "23"}`)
				if !strings.Contains(o.Content, "is 42") {
					t.Errorf("get-sum = %s, want 42", o.Content)
				}
			})
			t.Run("error", func(t *testing.T) {
				o := dispatch(t, reg, name("get-resource-reference"), `{"resourceType":"Text","resourceId":0}`)
				env := envelope(t, o)
				if env["status"] != "error" || env["error_code"] != string(tool.CodeInternal) ||
					!strings.Contains(env["message"].(string), "Invalid resourceId: 0") {
					t.Errorf("error result = %s", o.Content)
				}
				if o.Attempts != 1 {
					t.Errorf("the failed call ran %d times; a tool error is not retried", o.Attempts)
				}
			})
			t.Run("image", func(t *testing.T) {
				o := dispatch(t, reg, name("get-tiny-image"), `{}`)
				data, _ := envelope(t, o)["data"].(map[string]any)
				url, _ := data["image_data_url"].(string)
				const prefix = "data:image/png;base64,"
				if !strings.HasPrefix(url, prefix) {
					t.Fatalf("image result = %.300s", o.Content)
				}
				png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, prefix))
				if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
					t.Errorf("the image does not decode to a PNG (%v)", err)
				}
				if text, _ := data["text"].(string); !strings.Contains(text, "MCP logo") {
					t.Errorf("image text = %q", text)
				}
			})
			t.Run("structured", func(t *testing.T) {
				o := dispatch(t, reg, name("get-structured-content"), `{"location":"Chicago"}`)
				// The text is the JSON of the structured content, so the
				// model gets the structured content once, as data.
				if o.Content != `{"status":"ok","data":{"conditions":"Light rain / drizzle","humidity":82,"temperature":36}}` {
					t.Errorf("structured result = %s", o.Content)
				}
			})
			t.Run("resource links", func(t *testing.T) {
				o := dispatch(t, reg, name("get-resource-links"), `{"count":2}`)
				data, _ := envelope(t, o)["data"].(map[string]any)
				links, _ := data["resources"].([]any)
				if len(links) != 2 || !strings.Contains(o.Content, `"uri":"demo://`) {
					t.Errorf("resource links result = %s", o.Content)
				}
			})
		})
	}

	t.Run("minimal environment", func(t *testing.T) {
		o := dispatch(t, reg, "mcp__everything__get-env", `{}`)
		if !strings.Contains(o.Content, "from-config") || !strings.Contains(o.Content, "C.UTF-8") {
			t.Errorf("get-env lacks the configured or inherited variables: %.500s", o.Content)
		}
		if strings.Contains(o.Content, "sk-must-not-leak") || strings.Contains(o.Content, "OPENAI_API_KEY") {
			t.Errorf("the server saw hermes's API key: %.500s", o.Content)
		}
		if strings.Contains(logs.String(), "from-config") {
			t.Errorf("an env value was logged")
		}
	})

	t.Run("test command", func(t *testing.T) {
		rep, err := m.Test(context.Background(), "web")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Transport != TransportHTTP || rep.Connect <= 0 || len(rep.Tools) < 5 {
			t.Fatalf("report = %+v", rep)
		}
		var echo *TestTool
		for i := range rep.Tools {
			if rep.Tools[i].Name == "echo" {
				echo = &rep.Tools[i]
			}
		}
		if echo == nil || echo.Registered != "mcp__web__echo" || echo.Description == "" || echo.Problem != "" {
			t.Errorf("echo in report = %+v", echo)
		}
		if _, err := m.Test(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("testing an unknown server: %v", err)
		}
		t.Logf("server-everything over HTTP: connect %v, list %v", rep.Connect, rep.List)
	})
}
