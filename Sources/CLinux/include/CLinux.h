#ifndef CLINUX_H
#define CLINUX_H
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

/* Raw system calls Swift cannot reach: syscall(2) is variadic and glibc 2.36's wrappers are absent on Debian 12. */

/* pidfd_open(2). Returns a file descriptor or -1 with errno set. */
int clinux_pidfd_open(pid_t pid, unsigned int flags);

/* pidfd_send_signal(2) with no siginfo. Returns 0 or -1 with errno set. */
int clinux_pidfd_send_signal(int pidfd, int sig, unsigned int flags);

/* The owner of the outermost user namespace between the one `ns_path` names (`/proc/PID/ns/user`) and the caller's,
   whose device and inode number are `own_dev` and `own_ino`: the user a process in a rootless container runs for,
   whatever uid it runs as (its subordinate ids). The owner is given as a uid of the caller's namespace. Returns -1
   when the process is in the caller's namespace, when its namespace isn't below the caller's, or when it can't be
   read (another user's process, unless the caller owns its namespace). */
long long clinux_user_namespace_owner(const char *ns_path, unsigned long long own_dev, unsigned long long own_ino);

/* pipe2(2) with O_CLOEXEC (a GNU extension Swift's Glibc module does not declare): both ends close on exec from the
   start, so no child spawned meanwhile by another thread holds them. Returns 0 or -1 with errno set. */
int clinux_pipe_cloexec(int fds[2]);

/* posix_spawn_file_actions_addclosefrom_np(3) (glibc >= 2.34, not declared to Swift): the child closes every
   descriptor from `from` on before it runs the program. Add it last, after the actions that set up 0, 1 and 2.
   Returns 0 or an error number. */
int clinux_spawn_actions_close_from(posix_spawn_file_actions_t *actions, int from);

/* Makes `attributes` start the child with every signal's default disposition and an empty mask, whatever the caller
   ignores or blocks (POSIX_SPAWN_SETSIGDEF and POSIX_SPAWN_SETSIGMASK, added to the flags already set). Returns 0 or
   an error number. */
int clinux_spawnattr_reset_signals(posix_spawnattr_t *attributes);

/* The calling thread's errno, readable after a -1 return. */
int clinux_errno(void);

/* SCHED_RESET_ON_FORK: a flag that sched_setscheduler(2) ORs into the policy. */
int clinux_sched_reset_on_fork(void);

/* memrchr(3), a GNU extension Swift's Glibc module does not declare: the last byte `c` in the `n` bytes at `s`. */
const void *clinux_memrchr(const void *s, int c, size_t n);

/* clone3(2) with CLONE_INTO_CGROUP, then execve(2) in the child: starts `path` directly inside the cgroup whose
   directory `cgroup_fd` refers to (so a frozen cgroup holds it before it runs a single instruction of `path`). The child starts with
   default signal dispositions and an empty signal mask. Returns the child's pid, or -1 with errno set. The child exits with status 127 if execve fails. */
pid_t clinux_spawn_into_cgroup(int cgroup_fd, const char *path, char *const argv[], char *const envp[]);

/* Kernel proc connector (NETLINK_CONNECTOR, CN_IDX_PROC): process fork, exec and exit events. */

/* One process event. `kind` is 1 fork (pid = the child, parent = the parent), 2 exec, 3 exit, 4 comm change
   (prctl PR_SET_NAME), 0 anything else. Thread events (pid != tgid) are not reported. */
struct clinux_process_event {
    int kind;
    pid_t pid;
    pid_t parent;
};

/* Opens a non-blocking proc connector socket, subscribes to events and asks for a receive buffer of `buffer_bytes`.
   Returns the socket or -1 with errno set (EPERM without CAP_NET_ADMIN on kernels before 6.6). */
int clinux_proc_events_open(int buffer_bytes);

/* Reads pending events without blocking into `events` (room for `capacity`). Returns the count (0 when none is
   pending), or -1 with errno set; ENOBUFS means events were lost and the caller must rescan /proc. */
int clinux_proc_events_read(int socket, struct clinux_process_event *events, int capacity);
/* fork(2) + execve(2) for a supervised helper: the child gets its own process group (so that the whole group can be
   signalled), default signal dispositions and an empty signal mask, /dev/null as standard input, `stdout_fd` and
   `stderr_fd` as standard output and error, no other inherited descriptors beyond close-on-exec ones, and, when
   `address_space_limit` is not 0, RLIMIT_AS set to it (soft and hard), and, when `uid` is not (uid_t)-1, no
   supplementary groups and the group `gid` and user `uid` (setgroups(2), setgid(2), setuid(2)) before the execve.
   Returns the child's pid, or -errno when the fork, the change of user or the execve failed (the child's errno comes
   back through a close-on-exec pipe, and that child is reaped). */
pid_t clinux_spawn_limited(const char *path, char *const argv[], char *const envp[], int stdout_fd, int stderr_fd,
                           unsigned long long address_space_limit, uid_t uid, gid_t gid);


/* Names the calling thread (prctl(2) PR_SET_NAME; the kernel keeps 15 bytes). Returns 0 or -1 with errno set. */
int clinux_set_thread_name(const char *name);

/* The pid of the process at the other end of the connected Unix socket `fd` (SO_PEERCRED: the one that called
   connect(2) or listen(2)), or -1 with errno set. */
int clinux_socket_peer_pid(int fd);

struct stat;
/* The metadata of `path` as a process whose root folder is `root` (/proc/PID/root) resolves it: absolute symbolic
   links and ".." stay inside that root (openat2(2) with RESOLVE_IN_ROOT, and no magic links; where openat2 is
   missing or filtered, ENOSYS or EPERM, the same walk done component by component), then fstat(2). Returns 0, or -1
   with errno set. */
int clinux_stat_in_root(const char *root, const char *path, struct stat *status);

/* Reads at most `capacity` bytes of the regular file `path` as a process whose root folder is `root` resolves it (as
   clinux_stat_in_root), opened without waiting (O_NONBLOCK: a FIFO there can't hold the caller). Returns the count
   read, or -1 with errno set (EINVAL when it is not a regular file, EFBIG when it holds more than `capacity`). */
long clinux_read_in_root(const char *root, const char *path, void *buffer, unsigned long capacity);

/* Opens `path` for reading as a process whose root folder is `root` resolves it (as clinux_stat_in_root), without
   waiting (O_NONBLOCK) and never as a controlling terminal. Returns the descriptor, or -1 with errno set. */
int clinux_open_in_root(const char *root, const char *path);

/* Non-zero: clinux_stat_in_root and clinux_read_in_root never call openat2(2), and walk the path themselves (tests
   compare both ways). */
void clinux_set_in_root_walks_only(int walks_only);

/* Whether the NUL-terminated `needle` occurs in the `length` bytes at `bytes`: memmem(3), which the Glibc module leaves
   out. */
int clinux_contains_bytes(const void *bytes, size_t length, const char *needle);
/* Sets the calling thread's timer slack (prctl(2) PR_SET_TIMERSLACK): how late, in nanoseconds, the kernel may end its
   sleeps to wake it together with other timers; 0 sets the thread's default back. Returns 0 or -1 with errno set. */
int clinux_set_timer_slack(unsigned long nanoseconds);
/* Gives back the memory that start-up touched and the work since doesn't use: the process's mappings of its
   executable's and libraries' never-writable pages (code, read-only data: PT_LOAD segments without PF_W, as
   dl_iterate_phdr(3) lists them) are dropped with madvise(MADV_DONTNEED), their writable segments are offered to
   reclaim (MADV_PAGEOUT: clean pages go, written ones stay; the kernel does so only for a process that may write the
   file, such as root), and malloc(3)'s free memory is returned (malloc_trim).
   Nothing is lost: a page touched again is mapped again from the file. Returns the
   bytes of mappings advised. */
long long clinux_release_unused_pages(void);
/* SIGHUP without a thread of its own: the handler records it and writes a byte to `descriptor` (a pipe's non-blocking
   write end that the loop polls; -1 for none), so that the loop wakes and calls clinux_take_sighup(). Call it again
   with -1 before closing that pipe. Returns 0 or -1 with errno set (sigaction(2)). */
int clinux_trap_sighup(int descriptor);

/* Whether SIGHUP arrived since the last call. */
int clinux_take_sighup(void);

/* An epoll(7) instance watching `descriptors` (`count`, at most 64) for readability; the i-th reports as bit i.
   Returns it (close-on-exec) or -1 with errno set. */
int clinux_epoll_open(const int *descriptors, int count);

/* epoll_wait(2) on such an instance for up to `timeout_ms` (-1: no timeout). Returns the bits of the ready
   descriptors, 0 on timeout or when a signal interrupted the wait. */
unsigned long long clinux_epoll_wait(int epoll, int timeout_ms);
/* Adds (watch != 0) or removes a descriptor of an epoll set; it reports as bit `bit` of clinux_epoll_wait. */
int clinux_epoll_watch(int epoll, int descriptor, int bit, int watch);
#endif
