package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
)

// pickApprovals takes --approvals or asks, explaining each mode; empty
// leaves the mode as it is.
func (s *setupRun) pickApprovals(ctx context.Context) (string, error) {
	check := func(v string) (string, error) {
		var m config.ApprovalMode
		if err := m.UnmarshalText([]byte(strings.ToLower(strings.TrimSpace(v)))); err != nil {
			return "", fmt.Errorf("--approvals: %q is not accepted; use one of manual, smart, off", v)
		}
		return string(m), nil
	}
	if s.f.approvals != "" {
		return check(s.f.approvals)
	}
	if s.ask == nil {
		return "", nil
	}
	cur := string(s.l.Config.Approvals.Mode)
	if cur == "" {
		cur = "manual"
	}
	fmt.Fprintln(s.out, "How should dangerous shell commands be approved?")
	fmt.Fprint(s.out, ""+
		"  manual  hermes asks you before it runs a dangerous command (the default)\n"+
		"  smart   a reviewer model approves or refuses them, and asks you only when unsure\n"+
		"  off     dangerous commands run without asking (approvals.deny still blocks its commands)\n")
	for {
		ans, err := s.ask.line(ctx, "Approval mode", cur)
		if err != nil {
			return "", err
		}
		mode, err := check(ans)
		if err == nil {
			return mode, nil
		}
		fmt.Fprintln(s.out, "  Answer manual, smart or off.")
	}
}

// checkTelegram accepts a bot token, the bot's id, a colon and the secret
// part, without ever repeating it.
func checkTelegram(flag, tok string) error {
	id, secret, _ := strings.Cut(tok, ":")
	if !allOf(id, 3, 20, "0123456789") || !allOf(secret, 30, 100, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") {
		return fmt.Errorf("%s: not a Telegram bot token (digits, a colon, then some 35 letters, digits, - or _, as @BotFather gives it); the value is not shown here", flag)
	}
	return nil
}

// allOf reports whether s is between lo and hi bytes of chars.
func allOf(s string, lo, hi int, chars string) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune(chars, r) {
			return false
		}
	}
	return true
}

// pickTelegram takes --telegram-token or offers to add one, read without
// echo; empty leaves Telegram as it is.
func (s *setupRun) pickTelegram(ctx context.Context) (string, error) {
	if s.f.telegram != "" {
		return s.f.telegram, checkTelegram("--telegram-token", s.f.telegram)
	}
	if s.ask == nil {
		return "", nil
	}
	question := "Add a Telegram bot token, to talk to hermes from Telegram?"
	if s.l.Config.Gateway.Telegram.Token != "" {
		question = "Telegram is set up; replace its bot token?"
	}
	yes, err := s.ask.yesNo(ctx, question, false)
	if err != nil || !yes {
		return "", err
	}
	for {
		tok, err := s.ask.secret(ctx, "Bot token from @BotFather (it does not show as you type; Enter to skip)")
		if err != nil || tok == "" {
			return "", err
		}
		if err := checkTelegram("the token", tok); err != nil {
			fmt.Fprintln(s.out, " ", err)
			continue
		}
		return tok, nil
	}
}

// save writes the secrets to .env and the settings to config.yaml, the
// latter as one change through the code of hermes config set, then says
// what to try.
func (s *setupRun) save(ch setupChoice) error {
	m := s.l.Config.Model
	env := map[string]string{}
	pairs := []string{"model.provider", ch.provider, "model.default", ch.model}
	if ch.newKey {
		env[ch.keyVar] = ch.key
	}
	// The base URL is written only where it is not the provider's own, so
	// that it is exactly where the test call went.
	base := ch.baseURL
	if base == s.l.Config.Providers[ch.provider].BaseURL || s.l.Config.Providers[ch.provider].BaseURL == "" && base == ch.info.BaseURL {
		base = ""
	}
	if base != m.BaseURL {
		pairs = append(pairs, "model.base_url", base)
	}
	if ch.changed && m.APIMode != "" {
		pairs = append(pairs, "model.api_mode", "")
	}
	keyEnv := ""
	if len(ch.info.KeyEnv) == 0 && s.l.Config.Providers[ch.provider].APIKeyEnv == "" && ch.newKey ||
		!ch.changed && m.APIKeyEnv != "" {
		keyEnv = ch.keyVar
	}
	if keyEnv != m.APIKeyEnv {
		pairs = append(pairs, "model.api_key_env", keyEnv)
	}
	if ch.approvals != "" && ch.approvals != string(s.l.Config.Approvals.Mode) {
		pairs = append(pairs, "approvals.mode", ch.approvals)
	}
	if ch.telegram != "" {
		env["TELEGRAM_BOT_TOKEN"] = ch.telegram
		pairs = append(pairs, "gateway.telegram.token", "${TELEGRAM_BOT_TOKEN}")
	}
	paths := config.PathsFor(s.home)
	if len(env) > 0 {
		if _, err := config.SetEnv(s.home, env); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "\nSaved in %s (mode 0600):\n", paths.EnvFile)
		for _, name := range slices.Sorted(maps.Keys(env)) {
			fmt.Fprintf(s.out, "  %s=%s\n", name, config.Redact(env[name]))
		}
	}
	if err := s.tightenEnv(paths.EnvFile); err != nil {
		return err
	}
	res, err := config.SetMany(s.home, pairs...)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "\nSaved in %s:\n", paths.ConfigFile)
	for _, r := range res {
		v := r.Value
		if v == "" {
			v = `"" (the provider's own)`
		}
		fmt.Fprintf(s.out, "  %s = %s\n", r.Key, v)
	}
	s.tryThese(ch)
	return nil
}

// tryThese prints the three commands to try next.
func (s *setupRun) tryThese(ch setupChoice) {
	hermes := "hermes"
	if s.a.profile != "" {
		hermes += " -p " + s.a.profile
	}
	third := hermes + ` model call "Say hello"`
	if ch.telegram != "" || s.l.Config.Gateway.Telegram.Token != "" {
		third = hermes + " serve            # answers on Telegram; then: hermes pairing list"
	}
	fmt.Fprintf(s.out, "\nhermes is set up. Try:\n  %s\n  %s -q \"What is in this directory?\"\n  %s\n", hermes+" chat", hermes+" chat", third)
}

// tightenEnv makes a .env that others can read private (SetEnv writes it
// 0600; this is for one setup left unwritten) and says so.
func (s *setupRun) tightenEnv(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("setup: %s is readable by other users and could not be made private: %w; run: chmod 600 %s", path, err, path)
	}
	fmt.Fprintf(s.out, "\n%s was readable by other users (mode %04o); it holds keys, so it is now 0600.\n", path, fi.Mode().Perm())
	return nil
}
