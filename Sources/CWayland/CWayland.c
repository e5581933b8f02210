#include "CWayland.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

/* The two idle protocols' interfaces, as their XML (wayland-protocols' staging/ext-idle-notify-v1.xml,
   plasma-wayland-protocols' idle.xml) describes them: the requests this client sends and the events it reads. */

static const struct wl_interface ext_idle_notification_v1_interface;
static const struct wl_interface org_kde_kwin_idle_timeout_interface;

static const struct wl_interface *ext_get_idle_notification_types[] = {
    &ext_idle_notification_v1_interface, NULL, &wl_seat_interface};
static const struct wl_message ext_idle_notifier_v1_requests[] = {
    {"destroy", "", NULL},
    {"get_idle_notification", "nuo", ext_get_idle_notification_types},
};
static const struct wl_interface ext_idle_notifier_v1_interface = {
    "ext_idle_notifier_v1", 1, 2, ext_idle_notifier_v1_requests, 0, NULL};

static const struct wl_message ext_idle_notification_v1_requests[] = {{"destroy", "", NULL}};
static const struct wl_message ext_idle_notification_v1_events[] = {{"idled", "", NULL}, {"resumed", "", NULL}};
static const struct wl_interface ext_idle_notification_v1_interface = {
    "ext_idle_notification_v1", 1, 1, ext_idle_notification_v1_requests, 2, ext_idle_notification_v1_events};

static const struct wl_interface *kde_get_idle_timeout_types[] = {
    &org_kde_kwin_idle_timeout_interface, &wl_seat_interface, NULL};
static const struct wl_message org_kde_kwin_idle_requests[] = {
    {"get_idle_timeout", "nou", kde_get_idle_timeout_types},
};
static const struct wl_interface org_kde_kwin_idle_interface = {
    "org_kde_kwin_idle", 1, 1, org_kde_kwin_idle_requests, 0, NULL};

static const struct wl_message org_kde_kwin_idle_timeout_requests[] = {
    {"release", "", NULL}, {"simulate_user_activity", "", NULL}};
static const struct wl_message org_kde_kwin_idle_timeout_events[] = {{"idle", "", NULL}, {"resumed", "", NULL}};
static const struct wl_interface org_kde_kwin_idle_timeout_interface = {
    "org_kde_kwin_idle_timeout", 1, 2, org_kde_kwin_idle_timeout_requests, 2, org_kde_kwin_idle_timeout_events};

struct cwayland_idle {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_seat *seat;
    struct wl_proxy *ext_notifier;
    struct wl_proxy *kde_idle;
    /* The notification (ext) or timeout (KDE) object whose events say idle and resumed. */
    struct wl_proxy *notification;
    bool listed;
    bool idle;
};

static void registry_global(
    void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    struct cwayland_idle *idle = data;
    (void)version;
    if (strcmp(interface, wl_seat_interface.name) == 0 && idle->seat == NULL) {
        idle->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    } else if (strcmp(interface, ext_idle_notifier_v1_interface.name) == 0 && idle->ext_notifier == NULL) {
        idle->ext_notifier = wl_registry_bind(registry, name, &ext_idle_notifier_v1_interface, 1);
    } else if (strcmp(interface, org_kde_kwin_idle_interface.name) == 0 && idle->kde_idle == NULL) {
        idle->kde_idle = wl_registry_bind(registry, name, &org_kde_kwin_idle_interface, 1);
    }
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data, (void)registry, (void)name;
}

static const struct wl_registry_listener registry_listener = {registry_global, registry_global_remove};

static void listed(void *data, struct wl_callback *callback, uint32_t serial) {
    (void)serial;
    ((struct cwayland_idle *)data)->listed = true;
    wl_callback_destroy(callback);
}

static const struct wl_callback_listener listed_listener = {listed};

/* Both protocols' notifications have the same two events: idle (0) and resumed (1). */
static void became_idle(void *data, struct wl_proxy *notification) {
    (void)notification;
    ((struct cwayland_idle *)data)->idle = true;
}

static void resumed(void *data, struct wl_proxy *notification) {
    (void)notification;
    ((struct cwayland_idle *)data)->idle = false;
}

static void (*const notification_listener[])(void *, struct wl_proxy *) = {became_idle, resumed};

static long long milliseconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Reads and dispatches events until the registry is listed, at most `wait_ms`. */
static int wait_until_listed(struct cwayland_idle *idle, int wait_ms) {
    long long deadline = milliseconds_now() + wait_ms;
    while (!idle->listed) {
        if (wl_display_flush(idle->display) < 0 && errno != EAGAIN) return -1;
        while (wl_display_prepare_read(idle->display) != 0) {
            if (wl_display_dispatch_pending(idle->display) < 0) return -1;
        }
        long long remaining = deadline - milliseconds_now();
        if (idle->listed || remaining <= 0) {
            wl_display_cancel_read(idle->display);
            if (idle->listed) break;
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd descriptor = {.fd = wl_display_get_fd(idle->display), .events = POLLIN};
        int ready = poll(&descriptor, 1, (int)remaining);
        if (ready <= 0) {
            int saved = ready == 0 ? ETIMEDOUT : errno;
            wl_display_cancel_read(idle->display);
            if (saved == EINTR) continue;
            errno = saved;
            return -1;
        }
        if (wl_display_read_events(idle->display) < 0) return -1;
        if (wl_display_dispatch_pending(idle->display) < 0) return -1;
    }
    return 0;
}

struct cwayland_idle *cwayland_idle_open(int fd, uint32_t timeout_ms, int wait_ms, int *error) {
    struct cwayland_idle *idle = calloc(1, sizeof *idle);
    if (idle == NULL) {
        close(fd);
        *error = CWAYLAND_IDLE_CONNECTION;
        return NULL;
    }
    idle->display = wl_display_connect_to_fd(fd);
    if (idle->display == NULL) {
        free(idle);
        *error = CWAYLAND_IDLE_CONNECTION;
        return NULL;
    }
    idle->registry = wl_display_get_registry(idle->display);
    wl_registry_add_listener(idle->registry, &registry_listener, idle);
    wl_callback_add_listener(wl_display_sync(idle->display), &listed_listener, idle);
    if (wait_until_listed(idle, wait_ms) < 0) {
        int saved = errno;
        cwayland_idle_close(idle);
        errno = saved;
        *error = CWAYLAND_IDLE_CONNECTION;
        return NULL;
    }
    if (idle->seat == NULL || (idle->ext_notifier == NULL && idle->kde_idle == NULL)) {
        *error = idle->seat == NULL ? CWAYLAND_IDLE_NO_SEAT : CWAYLAND_IDLE_NO_PROTOCOL;
        cwayland_idle_close(idle);
        return NULL;
    }
    if (idle->ext_notifier != NULL) {
        idle->notification = wl_proxy_marshal_flags(
            idle->ext_notifier, 1, &ext_idle_notification_v1_interface, 1, 0, NULL, timeout_ms, idle->seat);
    } else {
        idle->notification = wl_proxy_marshal_flags(
            idle->kde_idle, 0, &org_kde_kwin_idle_timeout_interface, 1, 0, NULL, idle->seat, timeout_ms);
    }
    wl_proxy_add_listener(idle->notification, (void (**)(void))notification_listener, idle);
    if (wl_display_flush(idle->display) < 0 && errno != EAGAIN) {
        int saved = errno;
        cwayland_idle_close(idle);
        errno = saved;
        *error = CWAYLAND_IDLE_CONNECTION;
        return NULL;
    }
    return idle;
}

int cwayland_idle_fd(const struct cwayland_idle *idle) { return wl_display_get_fd(idle->display); }

int cwayland_idle_dispatch(struct cwayland_idle *idle) {
    while (wl_display_prepare_read(idle->display) != 0) {
        if (wl_display_dispatch_pending(idle->display) < 0) return -1;
    }
    if (wl_display_read_events(idle->display) < 0) return -1;
    return wl_display_dispatch_pending(idle->display) < 0 ? -1 : 0;
}

bool cwayland_idle_is_idle(const struct cwayland_idle *idle) { return idle->idle; }

const char *cwayland_idle_protocol(const struct cwayland_idle *idle) {
    return idle->ext_notifier != NULL ? ext_idle_notifier_v1_interface.name : org_kde_kwin_idle_interface.name;
}

void cwayland_idle_close(struct cwayland_idle *idle) {
    struct wl_proxy *proxies[] = {
        idle->notification, idle->ext_notifier, idle->kde_idle, (struct wl_proxy *)idle->seat,
        (struct wl_proxy *)idle->registry};
    for (size_t index = 0; index < sizeof proxies / sizeof proxies[0]; index++) {
        if (proxies[index] != NULL) wl_proxy_destroy(proxies[index]);
    }
    wl_display_disconnect(idle->display);
    free(idle);
}
