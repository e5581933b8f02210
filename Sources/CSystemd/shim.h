#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>


/* Swift cannot call C variadic functions: sd-bus is used through its non-variadic calls (sd_bus_call(3) with
 * messages built by sd_bus_message_append_basic(3)); sd_journal_send(3) is variadic, sd_journal_sendv(3) takes
 * iovecs and is importable directly. */
#endif
