package procgroup

import "syscall"

// setParentDeathSignal asks the kernel to send sig to the process when
// the thread that started it exits (see Start).
func setParentDeathSignal(a *syscall.SysProcAttr, sig syscall.Signal) { a.Pdeathsig = sig }
