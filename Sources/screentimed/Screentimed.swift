import ScreenTimeDaemon

/// `screentimed`: parses its arguments and runs the daemon (see `ScreenTimeDaemonCommand`).
@main
enum Screentimed {
    static func main() async {
        await ScreenTimeDaemonCommand.main()
    }
}
