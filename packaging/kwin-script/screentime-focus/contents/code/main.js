// Screen Time focus: reports KWin's active window to the Screen Time collector.
//
// The collector owns org.screentime.FocusSink on the session bus, exports /org/screentime/FocusSink and loads
// this script through org.kde.kwin.Scripting. KWin scripts can call D-Bus methods but not export them, so the
// script pushes: WindowActivated(s pid, s resource_class, s desktop_file_name), all strings so that no
// JavaScript number conversion can change their D-Bus type; empty strings when nothing is active.
// Works with Plasma 5 (workspace.clientActivated, workspace.activeClient) and Plasma 6 (windowActivated,
// activeWindow).
const SINK = "org.screentime.FocusSink";
const PATH = "/org/screentime/FocusSink";

function report(window) {
    if (!window) {
        callDBus(SINK, PATH, SINK, "WindowActivated", "", "", "");
        return;
    }
    callDBus(SINK, PATH, SINK, "WindowActivated", String(window.pid || 0), String(window.resourceClass || ""),
        String(window.desktopFileName || ""));
}

if (workspace.windowActivated !== undefined) {
    workspace.windowActivated.connect(report);
    report(workspace.activeWindow);
} else {
    workspace.clientActivated.connect(report);
    report(workspace.activeClient);
}
