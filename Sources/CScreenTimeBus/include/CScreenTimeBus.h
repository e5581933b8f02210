#ifndef CSCREENTIMEBUS_H
#define CSCREENTIMEBUS_H
#include <systemd/sd-bus.h>

/* The object screentimed exports: its interfaces as sd-bus vtables (sd-bus declares vtables only through C macros,
 * so they are built here), every method and property handled by the two callbacks of a `stbus_handlers`. */

/* Answers one method call: reply now, or keep a reference to `message` and reply later (sd_bus_reply_method_*).
 * Returns what an sd-bus method handler returns: >= 0 when handled, or a negative errno. */
typedef int (*stbus_method_fn)(sd_bus_message *message, void *context, sd_bus_error *error);

/* Appends the value of `interface`.`property` to `reply`. Returns >= 0, or a negative errno. */
typedef int (*stbus_property_fn)(const char *interface, const char *property, sd_bus_message *reply, void *context,
                                 sd_bus_error *error);

typedef struct stbus_handlers {
    stbus_method_fn method;
    stbus_property_fn property;
    void *context;
} stbus_handlers;

/* The object path and well-known name of the service. */
extern const char *const stbus_object_path;
extern const char *const stbus_service_name;

/* Exports every interface at `stbus_object_path` on `bus`; `handlers` must outlive the slots. The slots are stored
 * in `slots[0 ..< stbus_interface_count]`. Returns 0 or a negative errno (sd_bus_add_object_vtable(3)). */
int stbus_export(sd_bus *bus, stbus_handlers *handlers, sd_bus_slot **slots);

/* How many slots `stbus_export` fills. */
extern const int stbus_interface_count;

/* Emits PropertiesChanged for every property of org.screentime.Daemon1 (sd_bus_emit_properties_changed_strv(3)). */
int stbus_emit_daemon_properties_changed(sd_bus *bus);
#endif
