#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <linux/sched.h>
#include <stdint.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int clinux_pidfd_open(pid_t pid, unsigned int flags) { return (int)syscall(SYS_pidfd_open, pid, flags); }

int clinux_pidfd_send_signal(int pidfd, int sig, unsigned int flags) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, (void *)0, flags);
}

int clinux_errno(void) { return errno; }

int clinux_sched_reset_on_fork(void) { return SCHED_RESET_ON_FORK; }

pid_t clinux_spawn_into_cgroup(int cgroup_fd, const char *path, char *const argv[], char *const envp[]) {
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)cgroup_fd;
    long pid = syscall(SYS_clone3, &args, sizeof(args));
    if (pid == 0) {
        /* Only async-signal-safe calls between clone and exec. Start from default signal dispositions and an empty
           mask, as posix_spawn with POSIX_SPAWN_SETSIGDEF and POSIX_SPAWN_SETSIGMASK would. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL);
        sigset_t empty;
        sigemptyset(&empty);
        sigprocmask(SIG_SETMASK, &empty, NULL);
        execve(path, argv, envp);
        _exit(127);
    }
    return (pid_t)pid;
}
