package shell

import (
	"path"
	"strings"
)

// The path classifiers read a word's text: lower case, home folded to "~".
// Paths are cleaned lexically first, so /tmp/../etc/hosts is /etc/hosts
// and //. is /. A path under "~" is cleaned as if "~" were a directory of
// its own; one that climbs out of it is read as if the home were
// /home/user, so ~/.. is /home and ~/../.. is /.

// homeMark stands for "~" while a path is cleaned.
const homeMark = "/\x00home"

// cleanPath returns p cleaned, with "~" spelled as homeMark, and whether p
// is absolute (or home-relative) at all.
func cleanPath(p string) (string, bool) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		c := path.Clean(homeMark + p[1:])
		if c != homeMark && !strings.HasPrefix(c, homeMark+"/") {
			return path.Clean("/home/user" + p[1:]), true // climbed out of the home directory
		}
		return c, true
	case strings.HasPrefix(p, "/"):
		return path.Clean(p), true
	}
	return p, false
}

// rootTarget reports whether deleting p deletes the whole file system: /
// in any spelling (//, /., /./, /..) or everything directly under it (/*).
func rootTarget(p string) bool {
	c, abs := cleanPath(p)
	return abs && (c == "/" || c == "/*")
}

// systemDirTarget reports whether deleting p deletes a system directory
// or all of its contents (/etc, /usr/, /home/*).
func systemDirTarget(p string) bool {
	c, abs := cleanPath(p)
	if !abs || strings.HasPrefix(c, homeMark) {
		return false
	}
	c = strings.TrimSuffix(c, "/*")
	// The top-level directories whose removal leaves a machine that no
	// longer boots, or that has lost every user's data.
	for _, d := range [...]string{
		"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
		"/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var",
		"/applications", "/library", "/system", "/users", "/private", "/private/etc", "/private/var",
	} {
		if c == d {
			return true
		}
		if strings.ContainsAny(c, "*?[") { // a glob such as /e* or /???
			if m, _ := path.Match(c, d); m {
				return true
			}
		}
	}
	return false
}

// homeTarget reports whether deleting p deletes a home directory or all
// of its contents (~, ~/, ~/*, $HOME, /home/alice).
func homeTarget(p string) bool {
	c, abs := cleanPath(p)
	return abs && (c == homeMark || c == homeMark+"/*")
}

// under reports whether the cleaned path c is dir or inside it.
func under(c, dir string) bool {
	return c == dir || strings.HasPrefix(c, dir+"/")
}

// systemPath reports whether writing to p changes the operating system:
// anything under /etc, /boot, /usr, /bin, /sbin, /lib*, /sys, /proc/sys,
// and macOS's /private/{etc,var,tmp,home}, /System and /Library.
func systemPath(p string) bool {
	c, abs := cleanPath(p)
	if !abs {
		return false
	}
	for _, d := range [...]string{"/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
		"/sys", "/proc/sys", "/private/etc", "/private/var", "/private/tmp", "/private/home", "/system", "/library"} {
		if under(c, d) {
			return true
		}
	}
	return false
}

// blockDevice reports whether p names a raw disk, partition or volume:
// /dev/sd*, hd*, vd*, xvd*, nvme*, mmcblk*, md*, dm-*, loop*, nbd*, the
// macOS /dev/[r]diskN, /dev/mapper/* and the udev /dev/disk/by-*/* links.
func blockDevice(p string) bool {
	c, abs := cleanPath(p)
	if !abs {
		return false
	}
	dev, ok := strings.CutPrefix(c, "/dev/")
	if !ok || dev == "" {
		return false
	}
	for _, prefix := range [...]string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "nbd", "mtd"} {
		if strings.HasPrefix(dev, prefix) && !strings.Contains(dev, "/") {
			return true
		}
	}
	if d := strings.TrimPrefix(dev, "r"); strings.HasPrefix(d, "disk") && len(d) > 4 && d[4] >= '0' && d[4] <= '9' {
		return true
	}
	return strings.HasPrefix(dev, "mapper/") || strings.HasPrefix(dev, "disk/by-")
}

// devicePath reports whether p is under /dev (any device, not only disks).
func devicePath(p string) bool {
	c, abs := cleanPath(p)
	return abs && strings.HasPrefix(c, "/dev/")
}

// sshPath reports whether p is in a ~/.ssh directory (keys,
// authorized_keys, config).
func sshPath(p string) bool {
	c, abs := cleanPath(p)
	return abs && under(c, homeMark+"/.ssh")
}

// shellRCPath reports whether p is a shell start-up file that runs at the
// next login or new shell.
func shellRCPath(p string) bool {
	c, abs := cleanPath(p)
	if !abs {
		return false
	}
	switch strings.TrimPrefix(c, homeMark+"/") {
	case ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
		".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", ".config/fish/config.fish":
		return true
	}
	return false
}

// credentialPath reports whether p holds credentials or configuration
// that runs code (git's config can name an ssh command or hooks).
func credentialPath(p string) bool {
	c, abs := cleanPath(p)
	if !abs || !strings.HasPrefix(c, homeMark+"/") {
		return false
	}
	rel := c[len(homeMark)+1:]
	switch rel {
	case ".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", ".gitconfig", ".docker/config.json", ".kube/config":
		return true
	}
	return under(rel, ".aws") || under(rel, ".gnupg") || under(rel, ".config/gh")
}

// hermesPath reports whether p is in hermes's own home (~/.hermes, or the
// home Options name, read as it): its configuration, secrets, state.db,
// memories, skills, tools, persona and jobs change only through the
// tools made for them.
func hermesPath(p string) bool {
	c, abs := cleanPath(p)
	return abs && under(c, homeMark+"/.hermes")
}

// hermesConfigPath reports whether p is hermes's own configuration:
// config.yaml (which holds the approval policy itself) or a .env file
// with its secrets, under ~/.hermes or a profile there.
func hermesConfigPath(p string) bool {
	c, abs := cleanPath(p)
	if !abs || !under(c, homeMark+"/.hermes") {
		return false
	}
	return envOrConfigFile(c) || c == homeMark+"/.hermes"
}

// projectConfigPath reports whether p is a project's .env file (.env,
// .env.local, .env.production) or config.yaml, wherever it is.
func projectConfigPath(p string) bool { return envOrConfigFile(p) }

// envOrConfigFile reports whether p is named .env, .env.<stage> or
// config.yaml; examples, templates and backups (.env.example,
// .env.local.bak) hold no live secrets.
func envOrConfigFile(p string) bool {
	base := path.Base(p)
	if base == ".env" || base == "config.yaml" {
		return true
	}
	if !strings.HasPrefix(base, ".env.") {
		return false
	}
	switch path.Ext(base) {
	case ".example", ".sample", ".template", ".tmpl", ".dist", ".bak", ".orig", ".backup", ".old":
		return false
	}
	return true
}
