//go:build unix && !linux

package procgroup

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal; hermes's shutdown still kills the groups.
func setParentDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
