#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int clinux_proc_events_open(int buffer_bytes) {
    int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
    if (s < 0) return -1;
    struct sockaddr_nl address = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
    if (bind(s, (struct sockaddr *)&address, sizeof address) < 0) goto fail;
    /* SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped by net.core.rmem_max. */
    if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &buffer_bytes, sizeof buffer_bytes) < 0)
        setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
    char buffer[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))]
        __attribute__((aligned(NLMSG_ALIGNTO)));
    memset(buffer, 0, sizeof buffer);
    struct nlmsghdr *header = (struct nlmsghdr *)buffer;
    struct cn_msg *message = NLMSG_DATA(header);
    enum proc_cn_mcast_op operation = PROC_CN_MCAST_LISTEN;
    header->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof operation);
    header->nlmsg_type = NLMSG_DONE;
    header->nlmsg_pid = 0;
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof operation;
    memcpy(message->data, &operation, sizeof operation);
    if (send(s, header, header->nlmsg_len, 0) < 0) goto fail;
    return s;
fail:;
    int saved = errno;
    close(s);
    errno = saved;
    return -1;
}

int clinux_proc_events_read(int s, struct clinux_process_event *events, int capacity) {
    int count = 0;
    char buffer[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
    while (count < capacity) {
        ssize_t n = recv(s, buffer, sizeof buffer, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return count;
            if (errno == EINTR) continue;
            return -1;
        }
        for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, n) && count < capacity;
             header = NLMSG_NEXT(header, n)) {
            if (header->nlmsg_type == NLMSG_ERROR || header->nlmsg_type == NLMSG_NOOP) continue;
            struct cn_msg *message = NLMSG_DATA(header);
            struct proc_event event;
            memcpy(&event, message->data, sizeof event < message->len ? sizeof event : message->len);
            struct clinux_process_event *out = &events[count];
            switch (event.what) {
            case PROC_EVENT_FORK:
                if (event.event_data.fork.child_pid != event.event_data.fork.child_tgid) continue;
                *out = (struct clinux_process_event){ 1, event.event_data.fork.child_tgid,
                                                      event.event_data.fork.parent_tgid };
                break;
            case PROC_EVENT_EXEC:
                *out = (struct clinux_process_event){ 2, event.event_data.exec.process_tgid, 0 };
                break;
            case PROC_EVENT_EXIT:
                if (event.event_data.exit.process_pid != event.event_data.exit.process_tgid) continue;
                *out = (struct clinux_process_event){ 3, event.event_data.exit.process_tgid, 0 };
                break;
            case PROC_EVENT_COMM:
                *out = (struct clinux_process_event){ 4, event.event_data.comm.process_tgid, 0 };
                break;
            default:
                continue;
            }
            count++;
        }
    }
    return count;
}
