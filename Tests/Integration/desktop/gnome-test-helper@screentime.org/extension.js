// Test harness only. GNOME Shell starts in the overview, where new windows do not take the focus; a person
// leaves it with a key or a click, which a headless shell without input devices cannot receive.
const Main = imports.ui.main;

class TestHelper {
    enable() {
        if (Main.layoutManager._startingUp)
            this._id = Main.layoutManager.connect('startup-complete', () => Main.overview.hide());
        else
            Main.overview.hide();
    }

    disable() {
        if (this._id)
            Main.layoutManager.disconnect(this._id);
        this._id = 0;
    }
}

/** Entry point of a GNOME Shell 43-44 extension. */
function init() {
    return new TestHelper();
}
