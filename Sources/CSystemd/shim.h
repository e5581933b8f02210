#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

/* Swift cannot call C variadic functions; these fixed-signature wrappers are the only ones used. */

/* sd_bus_get_property_trivial(3) for type 'b'. */
static inline int csd_bus_get_bool(sd_bus *bus, const char *dest, const char *path, const char *iface,
                                   const char *member, int *out) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_trivial(bus, dest, path, iface, member, &err, 'b', out);
    sd_bus_error_free(&err);
    return r;
}

/* sd_bus_get_property_trivial(3) for type 'u'. */
static inline int csd_bus_get_u32(sd_bus *bus, const char *dest, const char *path, const char *iface,
                                  const char *member, uint32_t *out) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_trivial(bus, dest, path, iface, member, &err, 'u', out);
    sd_bus_error_free(&err);
    return r;
}

/* sd_bus_get_property_trivial(3) for type 't'. */
static inline int csd_bus_get_u64(sd_bus *bus, const char *dest, const char *path, const char *iface,
                                  const char *member, uint64_t *out) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_trivial(bus, dest, path, iface, member, &err, 't', out);
    sd_bus_error_free(&err);
    return r;
}

/* sd_bus_add_match(3) with a static callback slot returned to the caller. */
static inline int csd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match,
                                    sd_bus_message_handler_t callback, void *userdata) {
    return sd_bus_add_match(bus, slot, match, callback, userdata);
}

/* sd_bus_message_read(3) of a single basic value of type `type` into `out`. */
static inline int csd_bus_message_read_basic(sd_bus_message *m, char type, void *out) {
    return sd_bus_message_read_basic(m, type, out);
}

/* sd_bus_call_method(3) with no arguments. */
static inline int csd_bus_call_method_noargs(sd_bus *bus, const char *dest, const char *path, const char *iface,
                                             const char *member, sd_bus_message **reply) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bus, dest, path, iface, member, &err, reply, "");
    sd_bus_error_free(&err);
    return r;
}

/* sd_bus_call_method(3) with one string argument. */
static inline int csd_bus_call_method_s(sd_bus *bus, const char *dest, const char *path, const char *iface,
                                        const char *member, const char *arg, sd_bus_message **reply) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bus, dest, path, iface, member, &err, reply, "s", arg);
    sd_bus_error_free(&err);
    return r;
}

/* sd_bus_call_method(3) with one uint32 argument. */
static inline int csd_bus_call_method_u(sd_bus *bus, const char *dest, const char *path, const char *iface,
                                        const char *member, uint32_t arg, sd_bus_message **reply) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bus, dest, path, iface, member, &err, reply, "u", arg);
    sd_bus_error_free(&err);
    return r;
}

/* sd_journal_send(3) is variadic; sd_journal_sendv(3) takes iovecs and is importable directly. */
#endif
