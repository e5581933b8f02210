import ArgumentParser
import ScreenTimeDaemon

/// The `screentime` command line.
@main
struct ScreenTimeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screentime",
        abstract: "Screen Time for Linux: see and limit how apps are used.",
        discussion: """
            Reads which app is in front of each login session (logind, /proc and the desktop's focus) and how long \
            apps are used. Run `screentime now --watch` to watch it live.
            """,
        version: ScreenTimeVersion.current,
        subcommands: [
            NowCommand.self, AppsCommand.self, StatusCommand.self, ReportCommand.self, PolicyCommand.self,
            StopCommand.self,
            ExportCommand.self, PickCommand.self, ExtraCommand.self, AskCommand.self, RequestsCommand.self,
            ApproveCommand.self, DenyCommand.self, AgentCommand.self,
        ])
}

/// Options shared by commands that read tokens.
struct KeyOptions: ParsableArguments {
    @Flag(help: "Use the system service's token key (/var/lib/screentime/token.key) instead of the user's.")
    var system = false

    @Option(help: ArgumentHelp("Path of the token key file (created, mode 0600, if missing).", valueName: "path"))
    var tokenKey: String?

    init() {}

    init(system: Bool, tokenKey: String?) {
        self.system = system
        self.tokenKey = tokenKey
    }
}
