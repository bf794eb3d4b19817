package config

import (
	"net/url"
	"strings"
)

// MatrixGateway is gateway.matrix: a Matrix account hermes answers as,
// in unencrypted rooms it was invited to by someone allowed.
type MatrixGateway struct {
	// Homeserver is the Client-Server API root of the bot's homeserver,
	// such as https://matrix.example.org.
	Homeserver string `yaml:"homeserver" check:"url"`
	// UserID is the bot's Matrix id (@hermes:example.org): who logs in
	// with Password, and whose AccessToken must be.
	UserID string `yaml:"user_id"`
	// AccessToken is the bot's access token (usually
	// MATRIX_ACCESS_TOKEN in .env); empty logs in with Password. With
	// neither, Matrix is off.
	AccessToken Secret `yaml:"access_token"`
	// Password logs in as UserID when there is no AccessToken (usually
	// MATRIX_PASSWORD in .env).
	Password Secret `yaml:"password"`
	// DeviceID is the device a password login reuses, so restarts do
	// not add devices to the account; empty lets the homeserver pick.
	DeviceID string `yaml:"device_id"`
	// AllowAll answers everyone who writes to the bot, and joins every
	// room it is invited to. Off by default.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the Matrix user ids (@alice:example.org) allowed
	// besides paired users; their invites are accepted.
	Allow []string `yaml:"allow"`
	// Approvers are the user ids whose /approve and /deny answer
	// approval requests; empty means anyone allowed in the room.
	Approvers []string `yaml:"approvers"`
}

// On reports whether the section turns Matrix on: a token or password
// is set.
func (m MatrixGateway) On() bool { return m.AccessToken != "" || m.Password != "" }

// validateMatrix checks gateway.matrix when it is on: a homeserver URL, a
// user id a password login can use, and allow and approvers entries that
// are user ids, since "alice" would never match anyone.
func validateMatrix(m MatrixGateway, where func(key string) string) []error {
	if !m.On() {
		if m.Homeserver != "" || m.UserID != "" {
			return []error{badValue(where("gateway.matrix.access_token"), "gateway.matrix.access_token", "",
				"is not accepted with gateway.matrix.homeserver or user_id set; give the bot's access_token or its password (usually ${MATRIX_ACCESS_TOKEN} from .env), or remove the section")}
		}
		return nil
	}
	var errs []error
	bad := func(key, value, prob string) {
		errs = append(errs, badValue(where("gateway.matrix."+key), "gateway.matrix."+key, value, prob))
	}
	if u, err := url.Parse(m.Homeserver); m.Homeserver == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("homeserver", m.Homeserver, "is not accepted; give the homeserver's Client-Server API root, like https://matrix.example.org")
	}
	if m.UserID != "" && !matrixUserID(m.UserID) {
		bad("user_id", m.UserID, "is not accepted; give a Matrix user id, @localpart:server, like @hermes:example.org")
	} else if m.UserID == "" && m.AccessToken == "" {
		bad("user_id", "", "is not accepted with a password; give the user id to log in as, like @hermes:example.org")
	}
	for _, key := range []string{"allow", "approvers"} {
		list := m.Allow
		if key == "approvers" {
			list = m.Approvers
		}
		for _, id := range list {
			if !matrixUserID(id) {
				bad(key, id, "is not accepted; list Matrix user ids, @localpart:server, like @alice:example.org")
			}
		}
	}
	return errs
}

// matrixUserID reports whether s is @localpart:server.
func matrixUserID(s string) bool {
	local, server, ok := strings.Cut(strings.TrimPrefix(s, "@"), ":")
	return strings.HasPrefix(s, "@") && ok && local != "" && server != "" && !strings.ContainsAny(s, " \t\r\n/")
}
