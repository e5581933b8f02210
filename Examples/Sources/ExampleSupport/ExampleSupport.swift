@_exported import DeviceActivity
@_exported import FamilyControls
import Foundation
@_exported import ManagedSettings

/// What the four example apps share: their options, their state folder, authorization and schedules.
public struct ExampleApp: Sendable {
    /// The app's name, which names its state folder.
    public let name: String
    /// The options given as `--name value`.
    public let options: [String: String]

    /// The app `name` with the options after the command word of `arguments` (none when the program runs as an
    /// extension: then the arguments start with an option, which the extension's entry point reads).
    public init(name: String, arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.name = name
        var options: [String: String] = [:]
        var remaining = arguments.first?.hasPrefix("--") == false ? arguments.dropFirst() : []
        while let word = remaining.popFirst() {
            guard word.hasPrefix("--") else { Self.fail("unexpected argument \(word)") }
            options[String(word.dropFirst(2))] = remaining.first?.hasPrefix("--") == false ? remaining.popFirst() : ""
        }
        self.options = options
    }

    /// The option `name` as a number of seconds, or `fallback`.
    public func seconds(_ name: String, default fallback: Int) -> Int {
        guard let text = options[name] else { return fallback }
        guard let value = Int(text), value > 0 else { Self.fail("--\(name) takes a number of seconds, not \(text)") }
        return value
    }

    /// `$XDG_STATE_HOME/NAME` (or `~/.local/state/NAME`), created.
    public var stateFolder: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"] ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
        let folder = base + "/" + name
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The selection given with `--selection FILE` (as `screentime pick` prints it), kept in the state folder for
    /// the app's extensions; without the option, the kept one.
    public func selection() -> FamilyActivitySelection {
        let kept = stateFolder + "/selection.json"
        if let path = options["selection"] {
            guard let data = FileManager.default.contents(atPath: path) else { Self.fail("cannot read \(path)") }
            FileManager.default.createFile(atPath: kept, contents: data)
        }
        guard let data = FileManager.default.contents(atPath: kept),
            let selection = try? JSONDecoder().decode(FamilyActivitySelection.self, from: data)
        else { Self.fail("no selection: pass --selection FILE, made with `screentime pick`") }
        return selection
    }

    /// Appends a line to the app's log in its state folder (what its extensions did, for people and tests).
    public func record(_ line: String) {
        let path = stateFolder + "/events.log"
        let handle = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)!
        }()
        handle.seekToEndOfFile()
        handle.write(Data((line + "\n").utf8))
        try? handle.close()
        print(line)
    }

    /// Asks for authorization with the completion-handler form (which means `.individual`) and waits for it.
    public func authorize() async {
        let result: Result<Void, any Error> = await withCheckedContinuation { done in
            AuthorizationCenter.shared.requestAuthorization { done.resume(returning: $0) }
        }
        if case .failure(let error) = result { Self.fail("authorization refused: \(error)") }
    }

    /// Asks for authorization as a guardian's child (`.child`, the async form), as an app for children does.
    public func authorizeAsChild() async {
        do { try await AuthorizationCenter.shared.requestAuthorization(for: .child) } catch {
            Self.fail("authorization as a child refused: \(error)")
        }
    }

    /// Starts monitoring `activity`, or ends the program with the reason it was refused.
    public func startMonitoring(
        _ activity: DeviceActivityName, during schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
    ) {
        do { try DeviceActivityCenter().startMonitoring(activity, during: schedule, events: events) } catch {
            Self.fail("cannot monitor \(activity.rawValue): \(error)")
        }
    }

    /// A non-repeating schedule from `start` seconds from now for `length` seconds, in local time.
    public static func schedule(startingIn start: Int, lasting length: Int, warning: Int? = nil)
        -> DeviceActivitySchedule
    {
        let calendar = Calendar.current
        let now = Date()
        let parts: Set<Calendar.Component> = [.hour, .minute, .second]
        return DeviceActivitySchedule(
            intervalStart: calendar.dateComponents(parts, from: now.addingTimeInterval(TimeInterval(start))),
            intervalEnd: calendar.dateComponents(parts, from: now.addingTimeInterval(TimeInterval(start + length))),
            repeats: false, warningTime: warning.map { DateComponents(second: $0) })
    }

    /// Prints `message` on standard error and exits with status 1.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(1)
    }
}
