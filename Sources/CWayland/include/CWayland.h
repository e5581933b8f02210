#ifndef CWAYLAND_H
#define CWAYLAND_H
#include <stdbool.h>
#include <stdint.h>

/* A Wayland client that asks a compositor, over a connected socket, to tell when its seat has had no input for a
   while: `ext_idle_notifier_v1` (wlroots >= 0.17, KWin 6, Mutter 46), else KDE's older `org_kde_kwin_idle` (wlroots
   before 0.18, KWin 5). It binds nothing else but the first seat. */
struct cwayland_idle;

/* Why `cwayland_idle_open` failed. */
enum cwayland_idle_error {
    /* The connection failed or the compositor did not answer within the wait (errno set). */
    CWAYLAND_IDLE_CONNECTION = 1,
    /* The compositor has no seat. */
    CWAYLAND_IDLE_NO_SEAT = 2,
    /* The compositor offers neither idle protocol. */
    CWAYLAND_IDLE_NO_PROTOCOL = 3,
};

/* Takes `fd`, a socket connected to a compositor (closed on failure too), lists its globals waiting at most `wait_ms`
   for the answer, and asks to be told once the first seat has had no input for `timeout_ms`. Returns NULL with
   `*error` set (an `enum cwayland_idle_error`) on failure. */
struct cwayland_idle *cwayland_idle_open(int fd, uint32_t timeout_ms, int wait_ms, int *error);

/* The connection's file descriptor, to poll for input. */
int cwayland_idle_fd(const struct cwayland_idle *idle);

/* Reads what the compositor sent, without blocking, and acts on it. Call when the descriptor is readable. Returns 0,
   or -1 once the connection is lost or the compositor reported an error (errno set). */
int cwayland_idle_dispatch(struct cwayland_idle *idle);

/* Whether the seat has had no input for the timeout since the compositor last said so (false until then). */
bool cwayland_idle_is_idle(const struct cwayland_idle *idle);

/* The protocol in use: `ext_idle_notifier_v1` or `org_kde_kwin_idle`. */
const char *cwayland_idle_protocol(const struct cwayland_idle *idle);

/* Ends the connection and frees `idle`. */
void cwayland_idle_close(struct cwayland_idle *idle);

#endif
