package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DingTalkGateway is gateway.dingtalk: a DingTalk app robot. It is on
// when client_id and client_secret are set.
type DingTalkGateway struct {
	// ClientID is the app's Client ID (AppKey) from the DingTalk
	// developer console; empty leaves DingTalk off.
	ClientID string `yaml:"client_id"`
	// ClientSecret is the app's Client Secret (AppSecret), usually
	// DINGTALK_CLIENT_SECRET in .env. It opens the Stream connection,
	// fetches access tokens and signs the HTTP callbacks.
	ClientSecret Secret `yaml:"client_secret"`
	// RobotCode is the robot's code, for sends through the robot API;
	// empty means the client id, which it is for an app's own robot.
	RobotCode string `yaml:"robot_code"`
	// BaseURL is the open API root; empty means
	// https://api.dingtalk.com.
	BaseURL string `yaml:"base_url" check:"url"`
	// Mode is how messages reach hermes: stream (a WebSocket hermes
	// opens, the default, needing no public address) or http (DingTalk
	// posts each message to path on gateway.webhook.listen).
	Mode DingTalkMode `yaml:"mode"`
	// Path is where http mode answers DingTalk's posts (/dingtalk by
	// default).
	Path string `yaml:"path"`
	// AllowAll answers everyone who writes to the robot. Off by default:
	// anyone in the organization can find it.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the DingTalk user ids (staff ids) allowed besides
	// paired users.
	Allow []string `yaml:"allow"`
	// Approvers are the user ids whose /approve and /deny answer
	// approval requests; empty means anyone allowed in the chat.
	Approvers []string `yaml:"approvers"`
}

// DingTalkMode is how DingTalk delivers messages to hermes.
type DingTalkMode string

// The DingTalk delivery modes.
const (
	DingTalkStream DingTalkMode = "stream"
	DingTalkHTTP   DingTalkMode = "http"
)

// UnmarshalText accepts stream or http (empty is stream).
func (m *DingTalkMode) UnmarshalText(text []byte) error {
	return oneOf(m, text, true, DingTalkStream, DingTalkHTTP)
}

// DefaultDingTalkPath is where http mode answers when path is empty.
const DefaultDingTalkPath = "/dingtalk"

// validateDingTalk checks gateway.dingtalk as a whole: both credentials
// or neither, and in http mode a path no webhook route or other platform
// takes.
func validateDingTalk(g *Gateway, where func(key string) string) []error {
	d := g.DingTalk
	var errs []error
	switch {
	case d.ClientID != "" && d.ClientSecret == "":
		errs = append(errs, badValue(where("gateway.dingtalk.client_secret"), "gateway.dingtalk.client_secret", "",
			"is not accepted with a client_id; give the app's Client Secret from the DingTalk developer console (usually ${DINGTALK_CLIENT_SECRET} from .env)"))
	case d.ClientID == "" && d.ClientSecret != "":
		errs = append(errs, badValue(where("gateway.dingtalk.client_id"), "gateway.dingtalk.client_id", "",
			"is not accepted with a client_secret; give the app's Client ID (AppKey) from the DingTalk developer console"))
	}
	if strings.ContainsAny(d.ClientID, " \t\r\n/?#") {
		errs = append(errs, badValue(where("gateway.dingtalk.client_id"), "gateway.dingtalk.client_id", d.ClientID,
			"is not accepted; a Client ID (AppKey) has no spaces or slashes, like dingabcdefgh12345678"))
	}
	if d.Path != "" && !strings.HasPrefix(d.Path, "/") {
		errs = append(errs, badValue(where("gateway.dingtalk.path"), "gateway.dingtalk.path", d.Path,
			"is not accepted; use a URL path starting with /, like /dingtalk"))
	}
	if d.Mode != DingTalkHTTP || d.ClientID == "" {
		return errs
	}
	path := d.Path
	if path == "" {
		path = DefaultDingTalkPath
	}
	for _, name := range slices.Sorted(maps.Keys(g.Webhook.Routes)) {
		if g.Webhook.Routes[name].Path == path {
			errs = append(errs, badValue(where("gateway.dingtalk.path"), "gateway.dingtalk.path", path,
				fmt.Sprintf("is not accepted; gateway.webhook.routes.%s.path answers on that path already", name)))
		}
	}
	return errs
}
