#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <linux/close_range.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <stdint.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <grp.h>
#include <linux/openat2.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

int clinux_pidfd_open(pid_t pid, unsigned int flags) { return (int)syscall(SYS_pidfd_open, pid, flags); }

int clinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int clinux_spawn_actions_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int clinux_spawnattr_reset_signals(posix_spawnattr_t *attributes) {
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    short flags = 0;
    int error = posix_spawnattr_setsigdefault(attributes, &all);
    if (error == 0) error = posix_spawnattr_setsigmask(attributes, &none);
    if (error == 0) error = posix_spawnattr_getflags(attributes, &flags);
    if (error == 0) error = posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    return error;
}

long long clinux_user_namespace_owner(const char *ns_path, unsigned long long own_dev, unsigned long long own_ino) {
    struct stat status;
    /* One stat(2) for a process of the caller's namespace, the usual case. */
    if (stat(ns_path, &status) != 0 || (status.st_dev == own_dev && status.st_ino == own_ino)) return -1;
    int fd = open(ns_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    long long owner = -1;
    /* User namespaces nest at most 32 deep. */
    for (int depth = 0; depth < 33; depth++) {
        uid_t uid;
        if (ioctl(fd, NS_GET_OWNER_UID, &uid) != 0) break;
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent < 0) break;
        close(fd);
        fd = parent;
        if (fstat(fd, &status) != 0) break;
        if (status.st_dev == own_dev && status.st_ino == own_ino) {
            owner = (long long)uid;
            break;
        }
    }
    close(fd);
    return owner;
}

int clinux_pidfd_send_signal(int pidfd, int sig, unsigned int flags) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, (void *)0, flags);
}

int clinux_errno(void) { return errno; }

int clinux_sched_reset_on_fork(void) { return SCHED_RESET_ON_FORK; }

const void *clinux_memrchr(const void *s, int c, size_t n) { return memrchr(s, c, n); }

/* In a child between fork (or clone) and exec: default signal dispositions and an empty mask, as posix_spawn with
   POSIX_SPAWN_SETSIGDEF and POSIX_SPAWN_SETSIGMASK would give, and no descriptor but 0, 1 and 2 left open by exec.
   Async-signal-safe calls only. */
static void reset_signals_in_child(void) {
    /* Nothing but standard input, output and error reaches the program: every other descriptor closes on exec, also
       one another thread opened without O_CLOEXEC or had not yet marked (Linux >= 5.11; older kernels skip it). */
    syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL);
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
}

pid_t clinux_spawn_into_cgroup(int cgroup_fd, const char *path, char *const argv[], char *const envp[]) {
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)cgroup_fd;
    long pid = syscall(SYS_clone3, &args, sizeof(args));
    if (pid == 0) {
        /* Only async-signal-safe calls between clone and exec. */
        reset_signals_in_child();
        execve(path, argv, envp);
        _exit(127);
    }
    return (pid_t)pid;
}

pid_t clinux_spawn_limited(const char *path, char *const argv[], char *const envp[], int stdout_fd, int stderr_fd,
                           unsigned long long address_space_limit, uid_t uid, gid_t gid) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(report[0]);
        close(report[1]);
        return -saved;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec. */
        reset_signals_in_child();
        setpgid(0, 0);
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0 && null_fd != 0) { dup2(null_fd, 0); close(null_fd); }
        if (dup2(stdout_fd, 1) < 0 || dup2(stderr_fd, 2) < 0) goto failed;
        if (address_space_limit != 0) {
            struct rlimit limit = {address_space_limit, address_space_limit};
            if (setrlimit(RLIMIT_AS, &limit) < 0) goto failed;
        }
        if (uid != (uid_t)-1) {
            if (getuid() == 0 && setgroups(0, NULL) < 0) goto failed;
            if (setgid(gid) < 0 || setuid(uid) < 0) goto failed;
        }
        execve(path, argv, envp);
    failed:;
        int error = errno;
        ssize_t ignored = write(report[1], &error, sizeof(error));
        (void)ignored;
        _exit(127);
    }
    close(report[1]);
    int error = 0;
    ssize_t got;
    do { got = read(report[0], &error, sizeof(error)); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof(error)) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        return -error;
    }
    return pid;
}

static volatile int in_root_walks_only = 0;

void clinux_set_in_root_walks_only(int walks_only) { in_root_walks_only = walks_only; }

enum { IN_ROOT_MAX_LINKS = 40, IN_ROOT_MAX_DEPTH = 256 };

/* What openat2(2) with RESOLVE_IN_ROOT does, for kernels and seccomp filters without it (a unit's
   SystemCallFilter= of a systemd that doesn't know the call answers ENOSYS): the path is walked component by
   component from `root_fd` with O_PATH|O_NOFOLLOW; a symbolic link's target (read, never followed: a magic link of
   /proc is read as text too) goes on from the root when absolute; ".." goes back to the folder the walk came from,
   and never above the root (the folders walked are kept open, so one renamed meanwhile can't lead out). At most
   IN_ROOT_MAX_LINKS links. The last component is opened with `flags`, O_NOFOLLOW, from the folder that holds it. */
static int walk_in_root(int root_fd, const char *path, int flags) {
    char rest[8192];
    size_t length = strlen(path);
    if (length == 0) {
        errno = ENOENT;
        return -1;
    }
    if (length >= sizeof rest) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(rest, path, length + 1);
    int folders[IN_ROOT_MAX_DEPTH];
    int depth = 0;
    folders[0] = root_fd;
    int links = 0;
    int result = -1;
    char *cursor = rest;
    for (;;) {
        while (*cursor == '/') cursor++;
        if (*cursor == 0) {
            /* The path names a folder: opened as such. */
            result = openat(folders[depth], ".", flags | O_CLOEXEC);
            break;
        }
        char *end = strchrnul(cursor, '/');
        size_t size = (size_t)(end - cursor);
        char component[NAME_MAX + 1];
        if (size > NAME_MAX) {
            errno = ENAMETOOLONG;
            break;
        }
        memcpy(component, cursor, size);
        component[size] = 0;
        int slash_after = *end == '/';
        cursor = end;
        while (*cursor == '/') cursor++;
        int last = *cursor == 0;
        if (strcmp(component, ".") == 0) continue;
        if (strcmp(component, "..") == 0) {
            if (depth > 0) close(folders[depth--]);
            continue;
        }
        int fd = openat(folders[depth], component, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) break;
        struct stat status;
        if (fstat(fd, &status) != 0) {
            close(fd);
            break;
        }
        if (S_ISLNK(status.st_mode)) {
            char target[4096];
            ssize_t count = readlinkat(fd, "", target, sizeof target - 1);
            close(fd);
            if (count < 0) break;
            if (++links > IN_ROOT_MAX_LINKS) {
                errno = ELOOP;
                break;
            }
            target[count] = 0;
            size_t remaining = strlen(cursor);
            if ((size_t)count + 1 + remaining >= sizeof rest) {
                errno = ENAMETOOLONG;
                break;
            }
            /* rest becomes target "/" remaining (remaining may overlap rest: moved first); a link that ends the path
               ends it as it was, with its trailing slash or without. */
            int separator = remaining > 0 || slash_after;
            memmove(rest + count + separator, cursor, remaining + 1);
            memcpy(rest, target, (size_t)count);
            if (separator) rest[count] = '/';
            cursor = rest;
            if (target[0] == '/') {
                while (depth > 0) close(folders[depth--]);
            }
            continue;
        }
        if (last) {
            close(fd);
            if (slash_after && !S_ISDIR(status.st_mode)) {
                errno = ENOTDIR;
                break;
            }
            /* Only a file or a folder is opened for more than its metadata: a device bound into the root could
               answer an open. */
            if (!(flags & O_PATH) && !S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode)) {
                errno = EINVAL;
                break;
            }
            result = openat(folders[depth], component, flags | O_NOFOLLOW | O_CLOEXEC);
            break;
        }
        if (!S_ISDIR(status.st_mode)) {
            close(fd);
            errno = ENOTDIR;
            break;
        }
        if (depth + 1 >= IN_ROOT_MAX_DEPTH) {
            close(fd);
            errno = ENAMETOOLONG;
            break;
        }
        folders[++depth] = fd;
    }
    int saved = errno;
    while (depth > 0) close(folders[depth--]);
    errno = saved;
    return result;
}

static int open_in_root(const char *root, const char *path, unsigned long long flags) {
    int root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) return -1;
    int fd = -1;
    if (!in_root_walks_only) {
        struct open_how how = {.flags = flags | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
        fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
    }
    if (in_root_walks_only || (fd < 0 && (errno == ENOSYS || errno == EPERM))) {
        fd = walk_in_root(root_fd, path, (int)flags);
    }
    int saved = errno;
    close(root_fd);
    errno = saved;
    return fd;
}

int clinux_stat_in_root(const char *root, const char *path, struct stat *status) {
    int fd = open_in_root(root, path, O_PATH);
    if (fd < 0) return -1;
    int result = fstat(fd, status);
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

int clinux_open_in_root(const char *root, const char *path) {
    return open_in_root(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
}

long clinux_read_in_root(const char *root, const char *path, void *buffer, unsigned long capacity) {
    int fd = clinux_open_in_root(root, path);
    if (fd < 0) return -1;
    struct stat status;
    long result = -1;
    if (fstat(fd, &status) != 0) goto done;
    if (!S_ISREG(status.st_mode)) {
        errno = EINVAL;
        goto done;
    }
    if ((unsigned long long)status.st_size > capacity) {
        errno = EFBIG;
        goto done;
    }
    unsigned long total = 0;
    while (total < capacity) {
        ssize_t n = read(fd, (char *)buffer + total, capacity - total);
        if (n < 0) {
            if (errno == EINTR) continue;
            goto done;
        }
        if (n == 0) break;
        total += (unsigned long)n;
    }
    result = (long)total;
done:;
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

int clinux_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

int clinux_socket_peer_pid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return credentials.pid;
}

int clinux_contains_bytes(const void *bytes, size_t length, const char *needle) {
    return memmem(bytes, length, needle, strlen(needle)) != NULL;
}

int clinux_set_timer_slack(unsigned long nanoseconds) { return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0); }

#include <link.h>
#include <malloc.h>
#include <sys/mman.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static int release_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    if (info->dlpi_name != NULL && strstr(info->dlpi_name, "linux-vdso") != NULL) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    long long *advised = data;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        /* Only whole pages of this segment: a page it shares with a neighbour is left alone. */
        uintptr_t start = (info->dlpi_addr + header->p_vaddr + page - 1) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz) & ~(page - 1);
        if (end <= start) continue;
        /* Never-writable pages are the file's own: dropping them loses nothing. Writable ones may hold data written
           since (relocations, globals): those are only offered to reclaim, which keeps written pages. */
        int advice = (header->p_flags & PF_W) ? MADV_PAGEOUT : MADV_DONTNEED;
        if (madvise((void *)start, end - start, advice) == 0) *advised += (long long)(end - start);
    }
    return 0;
}

long long clinux_release_unused_pages(void) {
    long long advised = 0;
    dl_iterate_phdr(release_segments, &advised);
    malloc_trim(0);
    return advised;
}

static volatile int hangup_descriptor = -1;
static volatile sig_atomic_t hangup_pending;

static void on_hangup(int signal) {
    (void)signal;
    __atomic_store_n(&hangup_pending, 1, __ATOMIC_SEQ_CST);
    int descriptor = hangup_descriptor;
    if (descriptor >= 0) {
        int saved = errno;
        char byte = 1;
        ssize_t written = write(descriptor, &byte, 1);
        (void)written;
        errno = saved;
    }
}

int clinux_trap_sighup(int descriptor) {
    hangup_descriptor = descriptor;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = on_hangup;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(SIGHUP, &action, NULL);
}

int clinux_take_sighup(void) { return __atomic_exchange_n(&hangup_pending, 0, __ATOMIC_SEQ_CST); }

#include <sys/epoll.h>

int clinux_epoll_open(const int *descriptors, int count) {
    if (count < 0 || count > 64) {
        errno = EINVAL;
        return -1;
    }
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0) return -1;
    for (int index = 0; index < count; index++) {
        struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)index};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, descriptors[index], &event) != 0) {
            int saved = errno;
            close(epoll);
            errno = saved;
            return -1;
        }
    }
    return epoll;
}

int clinux_epoll_watch(int epoll, int descriptor, int bit, int watch) {
    if (!watch) return epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, NULL);
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)bit};
    return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event);
}

unsigned long long clinux_epoll_wait(int epoll, int timeout_ms) {
    struct epoll_event events[8];
    int count = epoll_wait(epoll, events, 8, timeout_ms);
    unsigned long long ready = 0;
    for (int index = 0; index < count; index++) ready |= 1ULL << events[index].data.u64;
    return ready;
}
