/* Preloaded into the daemon when scripts/profile-hot-code.sh runs it under valgrind, whose 3.19 (Debian 12) does not
   know pidfd_open(2) and pidfd_send_signal(2) and fails them with ENOSYS. Only those two calls are answered here: a
   pidfd is stood in for by an eventfd (never readable, as the pidfd of a live process) and a signal through it is
   sent with kill(2) to the pid it was opened for. Every other call goes to the C library's syscall(2). Profiling
   only: the daemon itself never loads this. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_DESCRIPTORS 65536
static pid_t pids[MAX_DESCRIPTORS];

long syscall(long number, ...) {
    va_list list;
    va_start(list, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(list, long);
    va_end(list);
    if (number == SYS_pidfd_open) {
        if (kill((pid_t)a[0], 0) != 0) return -1;
        int descriptor = eventfd(0, EFD_CLOEXEC);
        if (descriptor < 0 || descriptor >= MAX_DESCRIPTORS) return -1;
        pids[descriptor] = (pid_t)a[0];
        return descriptor;
    }
    if (number == SYS_pidfd_send_signal) {
        if (a[0] < 0 || a[0] >= MAX_DESCRIPTORS || pids[a[0]] == 0) {
            errno = EBADF;
            return -1;
        }
        return kill(pids[a[0]], (int)a[1]);
    }
    static long (*next)(long, ...);
    if (next == NULL) next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
