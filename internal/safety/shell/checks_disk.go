package shell

import "strings"

// The structural checks on disks, filesystems and firmware: formatting,
// wiping, discarding, secure erase and flashing.

// formatFilesystem fires on mkfs in any spelling (mkfs.ext4, mke2fs …)
// unless it only prints its version or help, on mkswap and newfs pointed
// at a raw device (they may also format a plain file), and on diskutil's
// erase verbs.
func formatFilesystem(c *call) bool {
	switch c.name {
	case "mkswap", "newfs":
		return anyWord(c.args, blockDevice)
	case "diskutil":
		for i, a := range c.args {
			if i > 1 {
				break
			}
			switch a.text {
			case "erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase", "reformat", "partitiondisk":
				return true
			}
		}
		return false
	}
	for _, a := range c.args {
		switch a.text {
		case "-v", "--version", "-h", "--help":
		default:
			return true
		}
	}
	return len(c.args) == 0
}

// wipeBlockDevice fires on the wipers that erase a whole disk when
// pointed at one: wipefs -a or -o (not -n), sgdisk -Z/-z/-o, parted
// mklabel or rm, sfdisk (except its listings), blkdiscard, shred, nvme
// format, sanitize or delete-ns, hdparm's security erase, TRIM and
// sector writes, sg_format and sg_sanitize.
func wipeBlockDevice(c *call) bool {
	o := getopt(c.args, "obtOpl", "offset backup-file types output")
	switch c.name {
	case "wipefs":
		_, offset := o.value("o", "offset")
		if !(o.has("a") || o.hasLong("all", 1) || offset) || o.has("n") || o.hasLong("no-act", 1) {
			return false
		}
	case "sgdisk":
		if !(o.has("Zzo") || o.hasLong("zap-all", 3) || o.hasLong("clear", 2)) {
			return false
		}
	case "parted":
		if !anyWord(o.operands, func(s string) bool { return s == "mklabel" || s == "mktable" || s == "rm" }) {
			return false
		}
	case "sfdisk":
		if o.has("ldVs") || o.hasLong("list", 3) || o.hasLong("dump", 2) || o.hasLong("verify", 2) || o.hasLong("show-size", 2) {
			return false
		}
	case "nvme":
		if sub, _ := subcommand(c.args, "", ""); !oneOf(sub, "format", "sanitize", "delete-ns", "write-zeroes", "dsm", "fw-download", "fw-commit", "fw-activate") {
			return false
		}
		o = getopt(c.args, "", "")
	case "hdparm":
		if !anyWord(c.args, func(s string) bool {
			return strings.HasPrefix(s, "--security-erase") || strings.HasPrefix(s, "--trim-sector") || s == "--write-sector" ||
				s == "--make-bad-sector" || strings.HasPrefix(s, "--fwdownload") || s == "--dco-restore" || s == "--security-set-pass"
		}) {
			return false
		}
		o = getopt(c.args, "", "security-erase security-erase-enhanced security-set-pass write-sector make-bad-sector trim-sector-ranges fwdownload fwdownload-mode3 fwdownload-mode3-max fwdownload-mode7 fwdownload-modee fwdownload-modee-max")
	case "sg_format", "sg_sanitize", "sg_unmap":
		return anyWord(c.args, devicePath)
	}
	return anyWord(o.operands, blockDevice) || c.name == "nvme" && anyWord(c.args, blockDevice)
}

// flashFirmware fires on programs that rewrite or erase firmware and
// flash chips: flashrom -w/-E, flash_erase, flashcp, nandwrite, mtd_debug
// erase or write.
func flashFirmware(c *call) bool {
	switch c.name {
	case "flashrom":
		o := getopt(c.args, "prwvcl", "programmer read write verify chip layout image")
		_, write := o.value("w", "write")
		return write || o.has("E") || o.hasLong("erase", 2)
	case "flash_erase", "flash_eraseall", "flashcp", "nandwrite":
		return true
	case "mtd_debug":
		return anyWord(c.args, func(s string) bool { return s == "erase" || s == "write" })
	}
	return false
}

// ddBlockDevice fires when dd writes onto a raw block device.
func ddBlockDevice(c *call) bool {
	of, ok := ddOperand(c, "of")
	if !ok {
		return false
	}
	for _, p := range c.spellings(of) {
		if blockDevice(p) {
			return true
		}
	}
	return false
}

// ddDevice fires when dd reads a device other than the harmless byte
// sources (a disk image being taken) or writes one other than the sinks.
func ddDevice(c *call) bool {
	if in, ok := ddOperand(c, "if"); ok && devicePath(in) {
		switch in {
		case "/dev/zero", "/dev/urandom", "/dev/random", "/dev/null", "/dev/full", "/dev/stdin":
		default:
			return true
		}
	}
	if of, ok := ddOperand(c, "of"); ok && devicePath(of) {
		switch of {
		case "/dev/null", "/dev/stdout", "/dev/stderr":
		default:
			return true
		}
	}
	return false
}

// ddOperand returns the value of dd's key= operand.
func ddOperand(c *call, key string) (string, bool) {
	for _, a := range c.args {
		if v, ok := strings.CutPrefix(a.text, key+"="); ok {
			return v, true
		}
	}
	return "", false
}
