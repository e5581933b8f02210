#include "CScreenTimeBus.h"
#include <stddef.h>

const char *const stbus_object_path = "/org/screentime/ScreenTime1";
const char *const stbus_service_name = "org.screentime.ScreenTime1";

static int method(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    stbus_handlers *handlers = userdata;
    return handlers->method(message, handlers->context, error);
}

static int property(sd_bus *bus, const char *path, const char *interface, const char *name, sd_bus_message *reply,
                    void *userdata, sd_bus_error *error) {
    (void)bus;
    (void)path;
    stbus_handlers *handlers = userdata;
    return handlers->property(interface, name, reply, handlers->context, error);
}

#define M(name, in, in_names, out, out_names) \
    SD_BUS_METHOD_WITH_NAMES(name, in, in_names, out, out_names, method, SD_BUS_VTABLE_UNPRIVILEGED)

static const sd_bus_vtable daemon_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Version", "s", property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Mode", "s", property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("PolicyPath", "s", property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("PolicyError", "s", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ShieldedUsers", "u", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("StoreMovedAside", "s", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    M("Status", "", SD_BUS_PARAM(), "s", SD_BUS_PARAM(status_json)),
    M("Reload", "", SD_BUS_PARAM(), "", SD_BUS_PARAM()),
    M("GrantExtraTime", "su", SD_BUS_PARAM(limit) SD_BUS_PARAM(seconds), "as", SD_BUS_PARAM(limits)),
    M("AskForTime", "us", SD_BUS_PARAM(seconds) SD_BUS_PARAM(reason), "u", SD_BUS_PARAM(request)),
    M("Requests", "", SD_BUS_PARAM(), "s", SD_BUS_PARAM(requests_json)),
    M("AnswerRequest", "ubu", SD_BUS_PARAM(request) SD_BUS_PARAM(approve) SD_BUS_PARAM(seconds), "as",
      SD_BUS_PARAM(answers)),
    M("AnswerShield", "sb", SD_BUS_PARAM(limit) SD_BUS_PARAM(close), "", SD_BUS_PARAM()),
    SD_BUS_SIGNAL_WITH_NAMES("Notification", "ussss" "s",
                             SD_BUS_PARAM(user) SD_BUS_PARAM(kind) SD_BUS_PARAM(limit) SD_BUS_PARAM(title)
                                 SD_BUS_PARAM(body) SD_BUS_PARAM(secondary),
                             0),
    SD_BUS_SIGNAL_WITH_NAMES("RequestFiled", "s", SD_BUS_PARAM(request_json), 0),
    SD_BUS_SIGNAL_WITH_NAMES("RequestAnswered", "s", SD_BUS_PARAM(request_json), 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable authorization_vtable[] = {
    SD_BUS_VTABLE_START(0),
    M("RequestAuthorization", "s", SD_BUS_PARAM(member), "s", SD_BUS_PARAM(status)),
    M("AuthorizationStatus", "", SD_BUS_PARAM(), "s", SD_BUS_PARAM(status)),
    M("RevokeAuthorization", "", SD_BUS_PARAM(), "", SD_BUS_PARAM()),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable activities_vtable[] = {
    SD_BUS_VTABLE_START(0),
    M("StartMonitoring", "ss", SD_BUS_PARAM(activity) SD_BUS_PARAM(activity_json), "", SD_BUS_PARAM()),
    M("StopMonitoring", "as", SD_BUS_PARAM(activities), "", SD_BUS_PARAM()),
    M("Activities", "", SD_BUS_PARAM(), "as", SD_BUS_PARAM(activities)),
    M("Activity", "s", SD_BUS_PARAM(activity), "s", SD_BUS_PARAM(activity_json)),
    M("RemainingTime", "ss", SD_BUS_PARAM(activity) SD_BUS_PARAM(event), "tt",
      SD_BUS_PARAM(used_seconds) SD_BUS_PARAM(remaining_seconds)),
    SD_BUS_SIGNAL_WITH_NAMES("Callback", "ussss",
                             SD_BUS_PARAM(user) SD_BUS_PARAM(client) SD_BUS_PARAM(callback) SD_BUS_PARAM(activity)
                                 SD_BUS_PARAM(event),
                             0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable settings_vtable[] = {
    SD_BUS_VTABLE_START(0),
    M("Settings", "s", SD_BUS_PARAM(store), "s", SD_BUS_PARAM(settings_json)),
    M("SetSettings", "ss", SD_BUS_PARAM(store) SD_BUS_PARAM(settings_json), "", SD_BUS_PARAM()),
    M("SetSetting", "sss", SD_BUS_PARAM(store) SD_BUS_PARAM(key) SD_BUS_PARAM(value_json), "", SD_BUS_PARAM()),
    M("ClearSetting", "ss", SD_BUS_PARAM(store) SD_BUS_PARAM(key), "", SD_BUS_PARAM()),
    M("ClearAllSettings", "", SD_BUS_PARAM(), "", SD_BUS_PARAM()),
    M("Stores", "", SD_BUS_PARAM(), "as", SD_BUS_PARAM(stores)),
    SD_BUS_SIGNAL_WITH_NAMES("ShieldChanged", "us", SD_BUS_PARAM(user) SD_BUS_PARAM(shield_json), 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable usage_vtable[] = {
    SD_BUS_VTABLE_START(0),
    M("Report", "xx", SD_BUS_PARAM(from_ms) SD_BUS_PARAM(to_ms), "s", SD_BUS_PARAM(report_json)),
    M("Segments", "sxx", SD_BUS_PARAM(segment) SD_BUS_PARAM(from_ms) SD_BUS_PARAM(to_ms), "s",
      SD_BUS_PARAM(segments_json)),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable catalog_vtable[] = {
    SD_BUS_VTABLE_START(0),
    M("Applications", "", SD_BUS_PARAM(), "s", SD_BUS_PARAM(applications_json)),
    M("Application", "s", SD_BUS_PARAM(bundle_identifier), "s", SD_BUS_PARAM(application_json)),
    M("Extensions", "", SD_BUS_PARAM(), "s", SD_BUS_PARAM(extensions_json)),
    SD_BUS_VTABLE_END,
};

static const struct {
    const char *interface;
    const sd_bus_vtable *vtable;
} interfaces[] = {
    {"org.screentime.Daemon1", daemon_vtable},
    {"org.screentime.Authorization1", authorization_vtable},
    {"org.screentime.Activities1", activities_vtable},
    {"org.screentime.Settings1", settings_vtable},
    {"org.screentime.Usage1", usage_vtable},
    {"org.screentime.Catalog1", catalog_vtable},
};

const int stbus_interface_count = sizeof(interfaces) / sizeof(interfaces[0]);

int stbus_export(sd_bus *bus, stbus_handlers *handlers, sd_bus_slot **slots) {
    for (int i = 0; i < stbus_interface_count; i++) {
        int r = sd_bus_add_object_vtable(bus, &slots[i], stbus_object_path, interfaces[i].interface,
                                         interfaces[i].vtable, handlers);
        if (r < 0) {
            for (int j = 0; j < i; j++) slots[j] = sd_bus_slot_unref(slots[j]);
            return r;
        }
    }
    return 0;
}

int stbus_emit_daemon_properties_changed(sd_bus *bus) {
    char *names[] = {"PolicyError", "ShieldedUsers", "StoreMovedAside", NULL};
    return sd_bus_emit_properties_changed_strv(bus, stbus_object_path, "org.screentime.Daemon1", names);
}
