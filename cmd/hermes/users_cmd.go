package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/config"
)

func newUsersCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "See and change the users and tenants of config.yaml",
		Long: `Users are the people who talk to hermes, under users: in config.yaml, each
with a tenant (tenants:), a role (admin, member or viewer), identities on
the chat platforms and an API key. Once any user is configured, the gateway
and the API serve only the users they recognize, each in sessions of their
own, with their own memory, within their tenant's tools, knowledge bases,
model and daily budget. The terminal stays the owner's.`,
	}
	cmd.AddCommand(newUsersListCmd(a), newUsersAddCmd(a), newUsersRemoveCmd(a))
	return cmd
}

func newUsersListCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the users with their tenant, role and identities",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			c := l.Config
			w := cmd.OutOrStdout()
			type row struct {
				ID         string            `json:"id"`
				Tenant     string            `json:"tenant,omitempty"`
				Role       string            `json:"role"`
				Identities map[string]string `json:"identities,omitempty"`
				APIKey     bool              `json:"api_key"`
			}
			rows := []row{}
			for _, id := range c.UserNames() {
				u := c.Users[id]
				rows = append(rows, row{ID: id, Tenant: u.Tenant, Role: u.RoleOrDefault(), Identities: u.Identities, APIKey: u.APIKeySHA256 != ""})
			}
			if asJSON {
				return printKBJSON(w, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(w, "no users: hermes serves its owner alone; hermes users add ID --tenant T adds one")
				return nil
			}
			fmt.Fprintf(w, "%-16s %-12s %-7s %-4s %s\n", "USER", "TENANT", "ROLE", "KEY", "IDENTITIES")
			for _, r := range rows {
				var ids []string
				for _, p := range slices.Sorted(maps.Keys(r.Identities)) {
					ids = append(ids, p+":"+r.Identities[p])
				}
				key := "no"
				if r.APIKey {
					key = "yes"
				}
				fmt.Fprintf(w, "%-16s %-12s %-7s %-4s %s\n", r.ID, r.Tenant, r.Role, key, strings.Join(ids, " "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the users as JSON")
	return cmd
}

func newUsersAddCmd(a *cli) *cobra.Command {
	var tenant, role string
	var identities []string
	var apiKey bool
	cmd := &cobra.Command{
		Use:     "add ID",
		Aliases: []string{"set"},
		Short:   "Add a user, or change one (hermes users set), in config.yaml",
		Example: `  hermes users add ana --tenant acme --role admin --identity telegram=123456789 --identity email=ana@acme.example
  hermes users add bob --tenant globex --api-key
  hermes users set bob --role viewer`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			pairs := []string{}
			if tenant != "" {
				pairs = append(pairs, "users."+id+".tenant", tenant)
			}
			if role != "" {
				pairs = append(pairs, "users."+id+".role", role)
			}
			for _, idn := range identities {
				p, v, ok := strings.Cut(idn, "=")
				if !ok || p == "" || v == "" {
					return fmt.Errorf("--identity %q: give PLATFORM=ID, like telegram=123456789 or email=ana@acme.example", idn)
				}
				pairs = append(pairs, "users."+id+".identities."+p, v)
			}
			var key string
			if apiKey {
				b := make([]byte, 24)
				if _, err := rand.Read(b); err != nil {
					return err
				}
				key = "sk-hermes-" + id + "-" + hex.EncodeToString(b)
				pairs = append(pairs, "users."+id+".api_key_sha256", config.HashAPIKey(key))
			}
			if len(pairs) == 0 {
				pairs = append(pairs, "users."+id+".role", config.RoleMember)
			}
			res, err := a.editUsers(cmd, pairs...)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s written to %s\n", id, res)
			if key != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "API key (shown once; hermes keeps only its hash): %s\n", key)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&tenant, "tenant", "", "the user's tenant (one of tenants: in config.yaml)")
	fl.StringVar(&role, "role", "", "admin, member or viewer (default member)")
	fl.StringArrayVar(&identities, "identity", nil, "PLATFORM=ID on a chat platform (repeat): telegram, slack, discord, matrix, wecom, feishu, dingtalk, email")
	fl.BoolVar(&apiKey, "api-key", false, "make the user an API key, print it once and store its hash")
	return cmd
}

func newUsersRemoveCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a user from config.yaml (their sessions, memory and usage stay)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := config.Home(a.env, a.profile)
			if err != nil {
				return err
			}
			path, err := config.Unset(home, "users."+args[0])
			if err != nil {
				return fmt.Errorf("user %q: %w; hermes users list shows the users", args[0], err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s removed from %s; their key and identities no longer let anyone in\n", args[0], path)
			return nil
		},
	}
}

// editUsers writes key, value pairs into config.yaml as one change and
// loads the result: a change that leaves the configuration invalid (a
// tenant that does not exist, an identity another user has) is undone,
// and its error returned.
func (a *cli) editUsers(cmd *cobra.Command, pairs ...string) (string, error) {
	home, err := config.Home(a.env, a.profile)
	if err != nil {
		return "", err
	}
	path := filepath.Join(home, "config.yaml")
	before, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	if _, err := config.SetMany(home, pairs...); err != nil {
		return "", err
	}
	if _, err := config.Load(a.loadOptions()); err != nil {
		if before == nil {
			os.Remove(path)
		} else if werr := os.WriteFile(path, before, 0o600); werr != nil {
			return "", fmt.Errorf("%w; and config.yaml could not be restored: %v", err, werr)
		}
		return "", fmt.Errorf("%w (config.yaml was left as it was)", err)
	}
	return path, nil
}
