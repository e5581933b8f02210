// Test harness only. GNOME Shell starts in the overview, where new windows do not take the focus; a person
// leaves it with a key or a click, which a headless shell without input devices cannot receive. It also exports
// org.screentime.TestInput at /org/screentime/TestInput on the shell's connection: MovePointer() moves a virtual
// pointer of the shell's seat, input as a device gives it (what resets Mutter's idle monitor).
const { Clutter, GLib, Gio } = imports.gi;
const Main = imports.ui.main;

const TestInputInterface = `<node>
  <interface name="org.screentime.TestInput">
    <method name="MovePointer"/>
  </interface>
</node>`;

class TestHelper {
    enable() {
        if (Main.layoutManager._startingUp)
            this._id = Main.layoutManager.connect('startup-complete', () => Main.overview.hide());
        else
            Main.overview.hide();
        const seat = Clutter.get_default_backend().get_default_seat();
        this._pointer = seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
        this._input = Gio.DBusExportedObject.wrapJSObject(TestInputInterface, {
            MovePointer: () => this._pointer.notify_relative_motion(GLib.get_monotonic_time(), 5, 5),
        });
        this._input.export(Gio.DBus.session, '/org/screentime/TestInput');
    }

    disable() {
        if (this._id)
            Main.layoutManager.disconnect(this._id);
        this._id = 0;
        this._input?.unexport();
        this._input = null;
        this._pointer = null;
    }
}

/** Entry point of a GNOME Shell 43-44 extension. */
function init() {
    return new TestHelper();
}
