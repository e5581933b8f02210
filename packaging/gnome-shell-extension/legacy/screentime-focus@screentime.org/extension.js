// Screen Time focus: exposes the focused window's pid, app id and WM class on the session bus.
//
// Bus name org.screentime.Focus, object /org/screentime/Focus, interface org.screentime.Focus:
//   GetFocus() -> (u pid, s app_id, s wm_class)   pid 0 / empty strings when unknown; all empty: no focus
//   signal FocusChanged(u pid, s app_id, s wm_class)
//   property Version u
// The collector trusts the name only when its owner is also the owner of org.gnome.Shell.
// GNOME Shell 43-44 (legacy imports). GNOME Shell 45-47 use ../../screentime-focus@screentime.org/.
const {Gio, GLib, Shell} = imports.gi;

const INTERFACE = `<node>
  <interface name="org.screentime.Focus">
    <method name="GetFocus">
      <arg type="u" direction="out" name="pid"/>
      <arg type="s" direction="out" name="app_id"/>
      <arg type="s" direction="out" name="wm_class"/>
    </method>
    <signal name="FocusChanged">
      <arg type="u" name="pid"/>
      <arg type="s" name="app_id"/>
      <arg type="s" name="wm_class"/>
    </signal>
    <property name="Version" type="u" access="read"/>
  </interface>
</node>`;

class FocusService {
    constructor() {
        this._exported = Gio.DBusExportedObject.wrapJSObject(INTERFACE, this);
        this._exported.export(Gio.DBus.session, '/org/screentime/Focus');
        this._nameId = Gio.bus_own_name_on_connection(
            Gio.DBus.session, 'org.screentime.Focus', Gio.BusNameOwnerFlags.NONE, null, null);
        this._focusId = global.display.connect('notify::focus-window', () => this._announce());
    }

    get Version() {
        return 1;
    }

    GetFocus() {
        return this._describe();
    }

    _describe() {
        const window = global.display.focus_window;
        if (!window)
            return [0, '', ''];
        const pid = window.get_pid();
        const app = Shell.WindowTracker.get_default().get_window_app(window);
        let appId = app?.get_id() ?? '';
        // Windows without a desktop entry get ids like "window:42": those name no app.
        if (appId.startsWith('window:'))
            appId = '';
        if (appId.endsWith('.desktop'))
            appId = appId.slice(0, -'.desktop'.length);
        return [pid > 0 ? pid : 0, appId, window.get_wm_class() ?? ''];
    }

    _announce() {
        this._exported.emit_signal('FocusChanged', new GLib.Variant('(uss)', this._describe()));
    }

    destroy() {
        global.display.disconnect(this._focusId);
        Gio.bus_unown_name(this._nameId);
        this._exported.unexport();
    }
}

class ScreenTimeFocusExtension {
    enable() {
        this._service = new FocusService();
    }

    disable() {
        this._service?.destroy();
        this._service = null;
    }
}

/** Entry point of a GNOME Shell 43-44 extension. */
function init() {
    return new ScreenTimeFocusExtension();
}
