#!/usr/bin/env bash
# install-test-deps.sh installs the programs hermes's integration tests
# run against: Chromium for the browser tools, openssh-server for the remote
# terminal tests, PostgreSQL for declared sql tools, Dovecot (IMAP) for the
# email gateway, tmux for the tests that drive hermes in a terminal (apt), the MCP servers and client from npm
# (scripts/npm/package.json, pinned by its package-lock.json, into
# scripts/npm/node_modules), and Mailpit, the SMTP server the email tests
# send to, built with go install into .tools/bin (not committed). It is
# idempotent: packages already present are left alone. When it cannot install (no apt-get, not root and no sudo), it says
# so and exits 0; the tests that need the missing packages then skip with a
# message naming what to install.
set -u

log() { printf 'install-test-deps: %s\n' "$*"; }

# have_chromium reports whether any Chromium or Chrome binary is on PATH.
have_chromium() {
	command -v chromium >/dev/null 2>&1 ||
		command -v chromium-browser >/dev/null 2>&1 ||
		command -v google-chrome >/dev/null 2>&1 ||
		command -v google-chrome-stable >/dev/null 2>&1
}

have_sshd() {
	command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ]
}

# install_npm installs the MCP test programs; npm ci is skipped when the
# installed tree is already the locked one.
install_npm() {
	local dir
	dir="$(cd "$(dirname "$0")" && pwd)/npm"
	if ! command -v npm >/dev/null 2>&1; then
		log "npm not found; the MCP tests will skip (install Node.js 18 or later)"
		return
	fi
	# The stamp is the lock file the tree was installed from.
	if cmp -s "$dir/package-lock.json" "$dir/node_modules/.hermes-installed-lock" 2>/dev/null; then
		log "npm test programs already installed"
		return
	fi
	log "installing npm test programs into $dir/node_modules"
	if (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error); then
		cp "$dir/package-lock.json" "$dir/node_modules/.hermes-installed-lock"
		log "installed npm test programs"
	else
		log "npm ci failed; the MCP tests will skip"
	fi
}
install_npm

# mailpit_version is the Mailpit the email tests run (its SMTP server and
# HTTP API).
mailpit_version=v1.33.1

# install_mailpit builds Mailpit into .tools/bin, where the tests look for
# it; a build of the same version is left alone.
install_mailpit() {
	local bin
	bin="$(cd "$(dirname "$0")/.." && pwd)/.tools/bin"
	if [ "$(cat "$bin/.mailpit-version" 2>/dev/null)" = "$mailpit_version" ] && [ -x "$bin/mailpit" ]; then
		log "mailpit $mailpit_version already built in $bin"
		return
	fi
	if ! command -v go >/dev/null 2>&1; then
		log "go not found; cannot build mailpit (the email tests will skip)"
		return
	fi
	log "building mailpit $mailpit_version into $bin (go install, from the Go module proxy)"
	mkdir -p "$bin"
	if GOBIN="$bin" CGO_ENABLED=0 go install "github.com/axllent/mailpit@$mailpit_version"; then
		printf '%s\n' "$mailpit_version" >"$bin/.mailpit-version"
		log "built mailpit $mailpit_version"
	else
		log "building mailpit failed (the email tests will skip)"
	fi
}
install_mailpit

have_dovecot() {
	command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ]
}
# install_dendrite builds the Matrix homeserver the Matrix gateway tests
# run against into bin/ at the repository's root (gitignored), where
# gateway/matrix/matrixtest looks for it. It needs only Go and the module
# proxy; the build is pure Go.
install_dendrite() {
	local bin
	bin="$(cd "$(dirname "$0")/.." && pwd)/bin"
	if [ -x "$bin/dendrite" ] && "$bin/dendrite" -version 2>/dev/null | grep -q '^0\.13\.8'; then
		log "dendrite already installed"
		return
	fi
	if ! command -v go >/dev/null 2>&1; then
		log "go not found; the Matrix tests will skip (install Go, then rerun)"
		return
	fi
	log "installing dendrite v0.13.8 into $bin"
	if GOBIN="$bin" CGO_ENABLED=0 go install github.com/matrix-org/dendrite/cmd/dendrite@v0.13.8; then
		log "installed dendrite"
	else
		log "go install of dendrite failed; the Matrix tests will skip"
	fi
}
install_dendrite

have_postgres() {
	compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1
}

missing=()
if have_postgres; then
	log "postgresql already installed"
else
	missing+=(postgresql)
fi
if have_chromium; then
	log "chromium already installed"
else
	missing+=(chromium)
fi
if have_sshd; then
	log "openssh-server already installed"
else
	missing+=(openssh-server)
fi
if have_dovecot; then
	log "dovecot-imapd already installed"
else
	missing+=(dovecot-imapd)
fi

if command -v tmux >/dev/null 2>&1; then
	log "tmux already installed"
else
	missing+=(tmux)
fi

if [ ${#missing[@]} -eq 0 ]; then
	log "nothing to do"
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	log "apt-get not found; cannot install ${missing[*]} (install them by hand; the tests that need them will skip)"
	exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=(sudo -n)
	else
		log "not root and no password-less sudo; cannot install ${missing[*]} (the tests that need them will skip)"
		exit 0
	fi
fi

export DEBIAN_FRONTEND=noninteractive
log "installing ${missing[*]}"
if ! "${SUDO[@]}" apt-get update -q; then
	log "apt-get update failed; trying the install anyway"
fi
if "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
	log "installed ${missing[*]}"
else
	log "apt-get install ${missing[*]} failed (the tests that need them will skip)"
fi
exit 0
