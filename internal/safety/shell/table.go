package shell

// hardlineRules are the commands hermes never runs, whatever the mode,
// --yolo, the allowlist or a person's answer: each destroys something with
// no way back. The set is kept small on purpose; recoverable damage
// (git reset --hard, chmod -R 777, curl | sh) belongs to dangerousRules,
// where a person can still say yes.
func hardlineRules() []rule {
	return []rule{
		{
			key: "delete_root", desc: "delete of the root filesystem", level: Hardline,
			names: "rm mv rsync find", check: deletes(rootTarget),
		},
		{
			key: "delete_system_dir", desc: "delete of a system directory (/etc, /usr, /home …)", level: Hardline,
			names: "rm mv rsync find", check: deletes(systemDirTarget),
		},
		{
			key: "delete_home", desc: "delete of a home directory", level: Hardline,
			names: "rm mv rsync find", check: deletes(homeTarget),
		},
		{
			key: "format_filesystem", desc: "format a filesystem (mkfs)", level: Hardline,
			names: "mkfs mke2fs mkdosfs mkntfs mkexfatfs mkswap newfs diskutil", check: formatFilesystem,
		},
		{
			key: "wipe_block_device", desc: "wipe a raw block device", level: Hardline,
			names: "wipefs sgdisk parted sfdisk blkdiscard shred nvme hdparm sg_format sg_sanitize sg_unmap", check: wipeBlockDevice,
		},
		{
			key: "flash_firmware", desc: "erase or rewrite firmware or a flash chip (flashrom -w)", level: Hardline,
			names: "flashrom flash_erase flash_eraseall flashcp nandwrite mtd_debug", check: flashFirmware,
		},
		{
			key: "permissions_root", desc: "recursive permission or owner change of the whole filesystem (chmod -R 000 /)", level: Hardline,
			names: "chmod chown chgrp", check: recursiveOnRoot,
		},
		{
			key: "dd_block_device", desc: "dd onto a raw block device", level: Hardline,
			names: "dd", check: ddBlockDevice,
		},
		{
			key: "write_block_device", desc: "write onto a raw block device", level: Hardline,
			check: writesTo(blockDevice, anyWrite&^viaInPlace),
		},
		{
			key: "fork_bomb", desc: "fork bomb", level: Hardline,
			scan: forkBomb, names: interpreterNames, check: codeForkBomb,
		},
		{
			key: "kill_all_processes", desc: "kill every process (kill -1, killall5, pkill .)", level: Hardline,
			names: "kill pkill killall killall5", check: killAllProcesses,
		},
		{
			key: "kill_init", desc: "kill init (PID 1), which panics the kernel", level: Hardline,
			names: "kill", check: killInit,
		},
		{
			key: "sysrq_trigger", desc: "write to /proc/sysrq-trigger (instant reboot or crash)", level: Hardline,
			check: writesTo(func(p string) bool { c, _ := cleanPath(p); return c == "/proc/sysrq-trigger" }, anyWrite),
		},
		{
			key: "shutdown", desc: "shut down or reboot the machine", level: Hardline,
			names: "shutdown reboot halt poweroff init telinit systemctl loginctl kexec dbus-send gdbus busctl qdbus",
			cmd: []string{
				`^(?:shutdown|reboot|halt|poweroff)(?: |$)`,
				`^(?:init|telinit) [016s](?: |$)`,
				`^(?:systemctl|loginctl)(?: \S+)* (?:poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)(?: |$)`,
				`^systemctl(?: \S+)* (?:isolate|start|restart)(?: \S+)* (?:poweroff|reboot|halt|kexec|emergency|rescue|shutdown|soft-reboot)(?:\.target)?(?: |$)`,
				`^(?:dbus-send|gdbus|busctl|qdbus)(?: \S+)* \S*\b(?:poweroff|reboot|halt|kexec)\b`,
			},
			check: kexecReboot,
		},
	}
}

// Program groups shared by several rules.
const (
	shellNames       = "sh bash rbash zsh ksh mksh dash ash yash fish csh tcsh"
	interpreterNames = "python perl ruby node php lua deno bun osascript rscript"
)

// dangerousRules are the commands that need approval: a person's (or the
// smart-mode judge's) yes, an allowlist entry, or approvals turned off.
func dangerousRules() []rule {
	return append(append(fileRules(), execRules()...), systemRules()...)
}

// fileRules guard deletes, permissions and writes to files that matter.
func fileRules() []rule {
	return []rule{
		{key: "sudo_stdin", desc: "sudo reading a password from stdin or askpass (-S/-A)", level: Dangerous, check: sudoStdin},
		{key: "recursive_delete", desc: "recursive delete", level: Dangerous, names: "rm", check: rmRecursive},
		{key: "delete_absolute_path", desc: "delete by absolute path", level: Dangerous, names: "rm", check: rmAbsolute},
		{
			key: "delete_sensitive_file", desc: "delete SSH keys, credentials or hermes's config", level: Dangerous,
			names: "rm unlink shred srm", check: rmTargets(func(p string) bool { return sshPath(p) || credentialPath(p) || hermesConfigPath(p) }),
		},
		{
			key: "remove_system_file", desc: "remove or move away a system file (unlink /bin/sh, mv /usr/bin/sudo)", level: Dangerous,
			names: "rm unlink shred rmdir srm mv", check: removesSystemFile,
		},
		{
			key: "windows_delete", desc: "Windows recursive or forced delete", level: Dangerous,
			names: "cmd powershell remove-item del erase rd rmdir",
			cmd: []string{
				`^cmd /[ckr] .*\b(?:del|erase|rd|rmdir)\b`,
				`^powershell(?: -\S+)* (?:remove-item|rmdir|erase|del|rd|ri|rm)(?: |$)`,
				`\bremove-item\b.* -(?:recurse|force)\b`,
				`^(?:del|erase|rd|rmdir)(?: /[a-z])* /[sq](?: |$)`,
			},
		},
		{key: "chmod_world_writable", desc: "make files writable by everyone (chmod 777, o+w)", level: Dangerous, names: "chmod", check: chmodWorldWritable},
		{key: "chown_root_recursive", desc: "recursive chown to root", level: Dangerous, names: "chown", check: chownRootRecursive},
		{
			key: "recursive_permissions_system", desc: "recursive permission or owner change of a system or home directory", level: Dangerous,
			names: "chmod chown chgrp", check: recursiveOnSystem,
		},
		{key: "rsync_delete", desc: "rsync --delete (removes what the source lacks)", level: Dangerous, names: "rsync", check: func(c *call) bool { return len(deleted(c)) > 0 }},
		{key: "disk_copy", desc: "raw disk copy (dd from or to a device)", level: Dangerous, names: "dd", check: ddDevice},
		{key: "find_delete", desc: "find -delete or find -exec rm", level: Dangerous, names: "find", check: findDelete},
		{key: "xargs_delete", desc: "delete files listed by xargs", level: Dangerous, names: "rm unlink shred rmdir", check: func(c *call) bool { return c.hasWrapper("xargs") }},
		{key: "write_system_path", desc: "write into a system directory (/etc, /usr, /boot …)", level: Dangerous, check: writesTo(systemPath, anyWrite)},
		{key: "write_ssh", desc: "write into ~/.ssh (keys, authorized_keys)", level: Dangerous, check: writesTo(sshPath, anyWrite)},
		{key: "write_shell_rc", desc: "write to a shell start-up file (~/.bashrc, ~/.profile …)", level: Dangerous, check: writesTo(shellRCPath, anyWrite)},
		{key: "write_credentials", desc: "write to a credentials file (~/.netrc, ~/.aws …)", level: Dangerous, check: writesTo(credentialPath, anyWrite)},
		{
			key: "write_hermes_config", desc: "change hermes's own files (config.yaml, .env, state.db, memories, skills, tools …)", level: Dangerous,
			check: writesTo(hermesPath, anyChange),
		},
		{
			key: "hermes_config_change", desc: "change hermes's configuration (hermes config set)", level: Dangerous,
			names: "hermes", cmd: []string{`^hermes{G} config (?:set|unset|edit)(?: |$)`},
		},
		{
			key: "hermes_self_change", desc: "run hermes to change its tools, skills, memory, jobs or services, or to run another agent", level: Dangerous,
			names: "hermes", check: hermesSelfChange,
		},
		{
			key: "write_git_hooks", desc: "write a git hook or git's configuration (.git/hooks, .git/config, ~/.gitconfig)", level: Dangerous,
			check: writesTo(gitHookPath, anyChange),
		},
		{
			key: "git_config_change", desc: "change git's global configuration or make git run a command (git config --global, core.hooksPath)", level: Dangerous,
			names: "git", check: gitConfigChange,
		},
		{key: "secret_read", desc: "read a .env file, or a process's environment or memory (/proc/<pid>/environ)", level: Dangerous, check: secretRead},
		{key: "attach_process", desc: "attach to a running process (gdb -p, strace -p), which reads its memory", level: Dangerous, check: attachProcess},
		{
			key: "write_project_config", desc: "overwrite a project .env or config.yaml", level: Dangerous,
			check: writesTo(projectConfigPath, viaRedirect|viaTee|viaCopy|viaDownload),
		},
	}
}

// execRules guard code that runs without being shown: downloaded,
// decoded, or passed as a string to a shell or interpreter.
func execRules() []rule {
	return []rule{
		{key: "pipe_remote_to_shell", desc: "pipe downloaded content into a shell (curl | sh)", level: Dangerous, scan: pipeIntoShell(fromDownload)},
		{key: "decode_to_shell", desc: "pipe decoded content into a shell (base64 -d | sh)", level: Dangerous, scan: pipeIntoShell(fromDecoder)},
		{key: "pipe_to_shell", desc: "pipe text into a shell or interpreter", level: Dangerous, scan: pipeIntoShell(fromAny)},
		{
			key: "process_substitution_exec", desc: "run a script from a process substitution (bash <(curl …))", level: Dangerous,
			names: shellNames + " " + interpreterNames + " source .", check: processSubstitutionExec,
		},
		{key: "source_substitution", desc: "source a script named by a command substitution", level: Dangerous, names: "source .", check: sourceSubstitution},
		{key: "eval", desc: "eval of a constructed command", level: Dangerous, names: "eval", cmd: []string{`^eval(?: |$)`}},
		{key: "shell_heredoc", desc: "run a shell script from a here-document", level: Dangerous, names: shellNames, check: shellHeredoc},
		{key: "interpreter_heredoc", desc: "run a script from a here-document (python <<EOF)", level: Dangerous, names: interpreterNames, check: interpreterHeredoc},
		{
			key: "shell_c", desc: "run a command string through a shell (sh -c, cmd /c)", level: Dangerous,
			names: shellNames + " cmd powershell su runuser script",
			check: func(c *call) bool { _, ok := commandString(c); return ok },
		},
		{key: "powershell_encoded", desc: "PowerShell encoded command", level: Dangerous, names: "powershell", cmd: []string{`^powershell(?: \S+)* -(?:e|ec|en|enc[a-z]*)(?: |$)`}},
		{key: "inline_code", desc: "run inline script code (python -c, perl -e, node -e …)", level: Dangerous, names: interpreterNames, check: inlineCode},
		{key: "awk_exec", desc: "awk running shell commands (system(), pipes)", level: Dangerous, names: "awk gawk mawk nawk", check: awkExec},
		{key: "chmod_exec_run", desc: "make a file executable and run it at once", level: Dangerous, scan: chmodExecRun},
		{key: "run_written_file", desc: "run a file the same command wrote or copied", level: Dangerous, check: func(c *call) bool { return c.runsWritten }},
		{
			key: "path_lookup", desc: "run a program by name while PATH holds a relative or temporary directory, where a program of that name may have been written",
			level: Dangerous, check: func(c *call) bool { return c.lookup },
		},
		{key: "dynamic_command", desc: "run a command whose name is only known when it runs (a variable or command substitution)", level: Dangerous, check: func(c *call) bool { return c.dynamic }},
		{
			key: "exec_option", desc: "run a command given in an option or environment variable (git -c core.pager, tar --checkpoint-action, vim -c '!…', ssh -o ProxyCommand)",
			level: Dangerous, check: execOption,
		},
		{key: "schedule_command", desc: "schedule a command to run later, outside hermes (at, batch, crontab, systemd-run timers)", level: Dangerous, check: scheduleCommand},
		{key: "network_shell", desc: "shell over a network socket (/dev/tcp, nc -e)", level: Dangerous, check: networkShell},
		{
			key: "cloud_metadata", desc: "cloud instance-metadata endpoint (instance credentials)", level: Dangerous,
			hint: []string{"169.254.169.254", "100.100.100.200", "metadata.google.internal", "fd00:ec2::254"},
			text: []string{`(?:^|[^\d.])(?:169\.254\.169\.254|100\.100\.100\.200)(?:[^\d.]|$)|(?:^|[^\w.-])metadata\.google\.internal(?:[^\w.-]|$)|fd00:ec2::254`},
		},
	}
}
