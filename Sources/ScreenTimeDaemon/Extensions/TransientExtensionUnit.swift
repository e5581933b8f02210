import Foundation
import LinuxActivity
import ScreenTimeModel

/// A guardian policy's monitor extension, run as the limited user in a transient service of the system manager
/// (`StartTransientUnit` with `User=`): never as root, under the extension limits (`RuntimeMaxSec=`, `LimitAS=`),
/// without new privileges, its output in the journal under the unit's name. The unit is collected when it ends, also
/// when it fails.
enum TransientExtensionUnit {
    /// Starts the unit and returns its name.
    static func start(
        executable: String, callback: MonitorCallback, activity: String, event: String?, user: UserID,
        limits: ExtensionLimits
    ) throws(LinuxActivityError) -> String {
        let name =
            // The activity's name, escaped, cut to keep the unit's name under systemd's 255 characters.
            "screentime-extension-\(ServiceManagerConfiner.unitNamePart(activity).prefix(160))-\(user.rawValue)-"
            + "\(UInt32.random(in: 0...UInt32.max)).service"
        let arguments = [executable] + ExtensionRunner.arguments(callback: callback, activity: activity, event: event)
        var environment = ["SCREENTIME_CALLBACK=\(callback.rawValue)", "SCREENTIME_ACTIVITY=\(activity)"]
        if let event { environment.append("SCREENTIME_EVENT=\(event)") }
        let (seconds, attoseconds) = limits.timeLimit.components
        let property = Bus.unitProperty
        var properties = [
            property("Description", .string("Screen Time monitor extension \(executable) (\(callback.rawValue))")),
            property(
                "ExecStart",
                .array(
                    elementSignature: "(sasb)",
                    [
                        .structure([
                            .string(executable), .array(elementSignature: "s", arguments.map(BusValue.string)),
                            .boolean(false),
                        ])
                    ])),
            property("User", .string(String(user.rawValue))),
            property("Environment", .array(elementSignature: "s", environment.map(BusValue.string))),
            property("RuntimeMaxUSec", .uint64(UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))),
            property("NoNewPrivileges", .boolean(true)),
            property("CollectMode", .string("inactive-or-failed")),
            property("StandardInput", .string("null")),
        ]
        if let bytes = limits.addressSpaceBytes {
            properties.append(property("LimitAS", .uint64(bytes)))
            properties.append(property("LimitASSoft", .uint64(bytes)))
        }
        try Bus.system().startTransientUnit(name, properties: properties, timeout: .seconds(5))
        return name
    }
}
