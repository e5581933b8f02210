#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int clinux_pidfd_open(pid_t pid, unsigned int flags) { return (int)syscall(SYS_pidfd_open, pid, flags); }

int clinux_pidfd_send_signal(int pidfd, int sig, unsigned int flags) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, (void *)0, flags);
}

int clinux_errno(void) { return errno; }

int clinux_sched_reset_on_fork(void) { return SCHED_RESET_ON_FORK; }
