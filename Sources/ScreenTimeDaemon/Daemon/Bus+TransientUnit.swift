import LinuxActivity

extension Bus {
    /// A unit property as `StartTransientUnit` takes it: `(sv)`.
    static func unitProperty(_ name: String, _ value: BusValue) -> BusValue {
        .structure([.string(name), .variant(value)])
    }

    /// Asks the service manager on this bus to start the transient unit `name` with `properties` (mode `fail`, no
    /// auxiliary units), waiting at most `timeout` for its answer.
    ///
    /// The method is `org.freedesktop.systemd1.Manager.StartTransientUnit` (org.freedesktop.systemd1(5)).
    func startTransientUnit(_ name: String, properties: [BusValue], timeout: Duration) throws(LinuxActivityError) {
        _ = try call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
            interface: "org.freedesktop.systemd1.Manager", member: "StartTransientUnit",
            arguments: [
                .string(name), .string("fail"), .array(elementSignature: "(sv)", properties),
                .array(elementSignature: "(sa(sv))", []),
            ], timeout: timeout)
    }
}
