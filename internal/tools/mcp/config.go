// Package mcp offers the tools of configured MCP servers to hermes's model.
// Each server (a child process speaking stdio, or a streamable HTTP
// endpoint) is connected by a Manager, its tools are registered in the
// tool registry as mcp__<server>__<tool>, and a server that goes away is
// reconnected in the background while its tools are withheld from the
// model.
package mcp

import (
	"fmt"
	"net/url"
	"time"
)

// Defaults for the limits a server's configuration leaves at zero.
const (
	// DefaultTimeout bounds one tool call.
	DefaultTimeout = 120 * time.Second
	// DefaultConnectTimeout bounds starting a server, the initialize
	// handshake and the first listing of its tools.
	DefaultConnectTimeout = 10 * time.Second
)

// Transport names how hermes talks to a server.
type Transport string

// The transports a server may use.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
)

// ServerConfig is one MCP server, in the shape Hermes and Claude Desktop
// use: Command/Args/Env for a server hermes starts and talks to over
// stdio, URL/Headers for a streamable HTTP endpoint. Exactly one of
// Command and URL is set.
type ServerConfig struct {
	Command string
	Args    []string
	// Env is added to the minimal environment a stdio server gets; values
	// are never logged.
	Env map[string]string
	URL string
	// Headers are sent with every HTTP request (typically Authorization);
	// values are never logged.
	Headers map[string]string
	// Timeout bounds one tool call; zero means DefaultTimeout.
	Timeout time.Duration
	// ConnectTimeout bounds connecting, initializing and listing tools;
	// zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Include, when not empty, keeps only the server's tools named here;
	// Exclude drops the tools named here. Names are the server's own.
	Include []string
	Exclude []string
	// SupportsParallelToolCalls lets calls of this server's tools run at
	// the same time; otherwise only tools the server marks read-only do.
	SupportsParallelToolCalls bool
	// Enabled servers are connected; a disabled one is only listed.
	Enabled bool
}

// transport says which transport the configuration describes.
func (c ServerConfig) transport() Transport {
	if c.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// withDefaults fills the zero limits.
func (c ServerConfig) withDefaults() ServerConfig {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	return c
}

// validate says what is wrong with a server's configuration, naming the
// server, the field and what is accepted. A server that fails validation
// is reported down and never retried: waiting does not fix a typo.
func (c ServerConfig) validate(name string) error {
	field := "mcp_servers." + name
	switch {
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("%s: neither command nor url is set; set command (and args) for a server hermes starts, or url for a streamable HTTP server", field)
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("%s: both command %q and url are set; set only one", field, c.Command)
	case c.Timeout < 0:
		return fmt.Errorf("%s.timeout: %v is negative; want a positive duration such as 120s, or nothing for the default", field, c.Timeout)
	case c.ConnectTimeout < 0:
		return fmt.Errorf("%s.connect_timeout: %v is negative; want a positive duration such as 10s, or nothing for the default", field, c.ConnectTimeout)
	}
	if c.URL != "" {
		if err := CheckURL(c.URL); err != nil {
			return fmt.Errorf("%s.url: %w", field, err)
		}
	}
	return nil
}

// CheckURL says why raw cannot be a streamable HTTP server's address,
// showing it without its user info and query; nil when it is an http://
// or https:// URL.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", redactURL(raw))
	}
	return nil
}

// redactURL drops the user info and query of a URL for messages, since
// either may carry a token.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}
