import Foundation
import Glibc
import ScreenTimeBus

/// One scene of a report extension: Apple's `DeviceActivityReportScene`, without SwiftUI. `makeConfiguration`
/// turns the use into a configuration; `content` turns that into what is shown, which is printed as text
/// (`String(describing:)`), so `Content` may be a `String` or any type that describes itself.
public protocol DeviceActivityReportScene {
    associatedtype Configuration
    associatedtype Content

    /// The report this scene renders.
    var context: DeviceActivityReport.Context { get }
    /// What is shown for a configuration.
    var content: (Configuration) -> Content { get }
    /// The configuration the use gives.
    func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async -> Configuration

    /// The text of `context`'s report, or nil when this scene is not `context`'s. Implemented for every scene.
    func render(_ context: DeviceActivityReport.Context, data: DeviceActivityResults<DeviceActivityData>) async
        -> String?
}

extension DeviceActivityReportScene {
    public func render(_ context: DeviceActivityReport.Context, data: DeviceActivityResults<DeviceActivityData>)
        async -> String?
    {
        guard context == self.context else { return nil }
        return String(describing: content(await makeConfiguration(representing: data)))
    }
}

/// Several scenes in one extension, as `DeviceActivityReportSceneBuilder` makes them.
public struct DeviceActivityReportScenes: DeviceActivityReportScene {
    let scenes: [any DeviceActivityReportScene]

    public var context: DeviceActivityReport.Context { scenes.first?.context ?? .init("") }
    public var content: (String) -> String { { $0 } }

    public func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async -> String { "" }

    public func render(_ context: DeviceActivityReport.Context, data: DeviceActivityResults<DeviceActivityData>)
        async -> String?
    {
        for scene in scenes {
            if let text = await scene.render(context, data: data) { return text }
        }
        return nil
    }

    /// The contexts of the scenes.
    public var contexts: [DeviceActivityReport.Context] { scenes.map(\.context) }
}

/// Builds an extension's `body` from its scenes: Apple's `DeviceActivityReportSceneBuilder`.
@resultBuilder
public enum DeviceActivityReportSceneBuilder {
    public static func buildBlock<Scene: DeviceActivityReportScene>(_ scene: Scene) -> Scene { scene }

    public static func buildBlock(_ scenes: any DeviceActivityReportScene...) -> DeviceActivityReportScenes {
        DeviceActivityReportScenes(scenes: scenes)
    }
}

/// A report extension: Apple's `DeviceActivityReportExtension`. Mark the conforming type `@main`; declared in its
/// app's desktop entry as `X-ScreenTime-Report=/path/to/program`, it is run as
/// `EXE --context NAME --filter FILTER_JSON` and prints the scene of that context, rendered over the user's use.
///
/// ```swift
/// @main struct UsageReport: DeviceActivityReportExtension {
///     var body: some DeviceActivityReportScene {
///         TotalActivityReport { totalActivity in "Total: \(totalActivity)" }
///     }
/// }
/// ```
public protocol DeviceActivityReportExtension {
    associatedtype Body: DeviceActivityReportScene
    @DeviceActivityReportSceneBuilder var body: Body { get }
    init()
}

extension DeviceActivityReportExtension {
    /// Renders the context the arguments name over the use the filter selects, prints it and exits: status 0, 64
    /// (`EX_USAGE`) for bad arguments or a context no scene renders, 69 (`EX_UNAVAILABLE`) when the daemon can't
    /// give the use.
    public static func main() async {
        let invocation: DeviceActivityReportInvocation
        do {
            invocation = try DeviceActivityReportInvocation(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(64)
        }
        let data = DeviceActivityResults<DeviceActivityData>(filter: invocation.filter)
        if let error = data.error {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(69)
        }
        guard let text = await Self().body.render(invocation.context, data: data) else {
            FileHandle.standardError.write(
                Data("no scene of this extension renders the context \"\(invocation.context.rawValue)\"\n".utf8))
            exit(64)
        }
        print(text)
        fflush(nil)
        exit(0)
    }
}
