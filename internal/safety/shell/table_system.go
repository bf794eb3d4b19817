package shell

// systemRules guard databases, version control, services, processes,
// packages and the Windows equivalents of the POSIX rules.
func systemRules() []rule {
	return append(dataRules(), processRules()...)
}

// dataRules guard databases and version-control history.
func dataRules() []rule {
	return []rule{
		{
			key: "sql_drop", desc: "SQL DROP", level: Dangerous, names: "dropdb", cmd: []string{`^dropdb(?: |$)`},
			hint: []string{"drop"}, text: []string{`\bdrop\s+(?:table|database|schema)\b`}, sql: true,
		},
		{key: "sql_delete_all", desc: "SQL DELETE without WHERE", level: Dangerous, hint: []string{"delete"}, textCheck: deleteWithoutWhere, sql: true},
		{
			key: "sql_truncate", desc: "SQL TRUNCATE", level: Dangerous, hint: []string{"truncate"}, sql: true,
			text: []string{`\btruncate\s+table\b`, `\btruncate\s+(?:only\s+)?[a-z_][\w.]*\s*(?:;|$)`},
		},
		{
			key: "git_reset_hard", desc: "git reset --hard (discards uncommitted changes)", level: Dangerous,
			names: "git", cmd: []string{`^git{G} reset(?: \S+)* --h(?:a|ar|ard)?(?: |$)`},
		},
		{
			key: "git_force_push", desc: "git force push (rewrites remote history)", level: Dangerous, names: "git",
			cmd: []string{`^git{G} push(?: \S+)* (?:--f\S*|-[a-z0-9]*f[a-z0-9]*|\+\S+|--mirror)(?: |$)`},
		},
		{
			key: "git_clean_force", desc: "git clean -f (deletes untracked files)", level: Dangerous, names: "git",
			cmd: []string{`^git{G} clean(?: \S+)* (?:-[a-z]*f[a-z]*|--force)(?: |$)`},
		},
		{
			key: "git_branch_delete", desc: "git branch delete (-d/-D, --delete --force)", level: Dangerous, names: "git",
			cmd: []string{
				`^git{G} branch(?: \S+)* -[a-z]*d[a-z]*(?: |$)`,
				`^git{G} branch(?: \S+)* --delete(?: \S+)* (?:--force|-f)(?: |$)`,
				`^git{G} branch(?: \S+)* (?:--force|-f)(?: \S+)* (?:--delete|-d)(?: |$)`,
			},
		},
		{
			key: "git_discard_changes", desc: "discard local changes (git checkout -f, git checkout -- .)", level: Dangerous, names: "git",
			cmd: []string{`^git{G} checkout(?: \S+)* (?:-f|--force)(?: |$)`, `^git{G} checkout(?: \S+)* -- \.$`, `^git{G} stash (?:drop|clear)(?: |$)`},
		},
	}
}

// processRules guard processes, services, containers, packages and the
// hermes gateway.
func processRules() []rule {
	return []rule{
		{key: "kill_hermes", desc: "kill hermes itself or its gateway", level: Dangerous, names: "pkill killall kill", check: killHermes},
		{key: "signal_init", desc: "signal init (PID 1)", level: Dangerous, names: "kill", check: signalInit},
		{key: "force_kill", desc: "force-kill processes by name (SIGKILL, killall -r)", level: Dangerous, names: "pkill killall", check: forceKill},
		{
			key: "gateway_lifecycle", desc: "stop or restart the hermes gateway (kills running agents)", level: Dangerous,
			names: "hermes launchctl", check: launchctlHermes,
			cmd: []string{`^hermes{G} gateway (?:stop|restart)(?: |$)`, `^hermes{G} update(?: |$)`},
		},
		{key: "gateway_detached", desc: "start the gateway outside its service manager", level: Dangerous, scan: gatewayDetached},
		{
			key: "systemctl_stop", desc: "stop, restart or disable a system service", level: Dangerous, names: "systemctl service",
			cmd: []string{
				`^systemctl(?: \S+)* (?:stop|restart|disable|mask|kill|isolate|suspend|hibernate|hybrid-sleep|suspend-then-hibernate)(?: |$)`,
				`^service \S+ (?:stop|restart)(?: |$)`,
			},
		},
		{
			key: "docker_lifecycle", desc: "stop or remove containers, images or volumes (docker stop/rm/prune)", level: Dangerous,
			names: "docker podman nerdctl docker-compose", check: dockerLifecycle,
		},
		{key: "docker_remote_daemon", desc: "docker aimed at another daemon (-H, --context, DOCKER_HOST)", level: Dangerous, check: dockerRemote},
		{
			key: "package_uninstall", desc: "uninstall packages", level: Dangerous,
			names: "npm pnpm yarn pip python brew gem cargo snap flatpak conda apt apt-get aptitude yum dnf pacman", check: packageUninstall,
		},
		{key: "crontab_remove", desc: "remove every cron job (crontab -r)", level: Dangerous, names: "crontab", cmd: []string{`^crontab(?: \S+)* -[a-z]*r[a-z]*(?: |$)`}},
		{
			key: "firewall_disable", desc: "flush or disable the firewall", level: Dangerous, names: "iptables ip6tables ufw nft",
			cmd: []string{`^ip6?tables(?: \S+)* (?:-f|--flush)(?: |$)`, `^ufw disable(?: |$)`, `^nft flush ruleset(?: |$)`},
		},
		{key: "user_delete", desc: "delete a user account", level: Dangerous, names: "userdel deluser", cmd: []string{`^(?:userdel|deluser)(?: |$)`}},
		{
			key: "destroy_volume", desc: "destroy a storage pool, volume or RAID/LUKS header", level: Dangerous,
			names: "zpool zfs lvremove vgremove pvremove mdadm cryptsetup",
			cmd: []string{
				`^(?:zpool|zfs) destroy(?: |$)`, `^(?:lvremove|vgremove|pvremove)(?: |$)`,
				`^mdadm(?: \S+)* --zero-superblock(?: |$)`, `^cryptsetup(?: \S+)* (?:erase|lukserase)(?: |$)`,
			},
		},
		{
			key: "windows_system", desc: "Windows disk, boot, registry or shadow-copy change", level: Dangerous,
			names: "format diskpart powershell format-volume clear-disk vssadmin wbadmin bcdedit reg remove-itemproperty cipher",
			cmd: []string{
				`^format [a-z]:`, `^diskpart(?: |$)`, `\b(?:format-volume|clear-disk)\b`,
				`^vssadmin .*\bdelete shadows\b`, `^wbadmin .*\bdelete\b`, `^bcdedit .* /set\b`,
				`^reg delete(?: |$)`, `\bremove-itemproperty\b.* -force\b`, `^cipher /w\b`,
			},
		},
		{
			key: "windows_kill", desc: "Windows forced process or service stop", level: Dangerous,
			names: "taskkill powershell stop-process stop-service sc icacls",
			cmd: []string{
				`^taskkill .* /f\b`, `\bstop-process\b.* -force\b`, `\bstop-service\b.* -force\b`, `^sc (?:stop|delete)(?: |$)`,
				`^icacls .* /grant .*\b(?:everyone|\*s-1-1-0)\b`, `^icacls .* /reset\b`,
			},
		},
	}
}
