package procgrouptest

import (
	"syscall"
	"time"
)

// sysPidfdOpen is pidfd_open(2), numbered alike on every Linux
// architecture.
const sysPidfdOpen = 434

// waitExit waits until pid has ended or deadline passed and reports
// whether it ended. A pidfd becomes readable when its process exits, so
// nothing polls; without pidfds (kernels before 5.3) /proc is read again
// every few milliseconds.
func waitExit(pid int, deadline time.Time) bool {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch errno {
	case 0:
	case syscall.ESRCH:
		return true
	default:
		return pollExit(pid, deadline)
	}
	defer syscall.Close(int(fd))
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return pollExit(pid, deadline)
	}
	defer syscall.Close(ep)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &ev); err != nil {
		return pollExit(pid, deadline)
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return !Alive(pid)
		}
		events := make([]syscall.EpollEvent, 1)
		n, err := syscall.EpollWait(ep, events, int(left/time.Millisecond)+1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return pollExit(pid, deadline)
		}
		if n > 0 {
			return true
		}
	}
}
