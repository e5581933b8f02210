// The entry point lives in DeviceActivity; this target sees it once the manifest lists DeviceActivity as one of
// its dependencies.
#if canImport(DeviceActivity)
    import DeviceActivity
    import Testing

    @Suite("DeviceActivityMonitorMain argument parsing and dispatch")
    struct ExtensionEntryPointTests {
        final class RecordingMonitor: DeviceActivityMonitor {
            var calls: [String] = []
            override func intervalDidStart(for activity: DeviceActivityName) {
                calls.append("start \(activity.rawValue)")
            }
            override func intervalDidEnd(for activity: DeviceActivityName) { calls.append("end \(activity.rawValue)") }
            override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
                calls.append("threshold \(event.rawValue) \(activity.rawValue)")
            }
            override func eventWillReachThresholdWarning(
                _ event: DeviceActivityEvent.Name, activity: DeviceActivityName
            ) {
                calls.append("warning \(event.rawValue) \(activity.rawValue)")
            }
        }

        private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> [String] {
            let monitor = RecordingMonitor()
            let invocation = try DeviceActivityMonitorMain.parse(arguments: arguments, environment: environment)
            DeviceActivityMonitorMain.dispatch(invocation, to: monitor)
            return monitor.calls
        }

        @Test("the runner's arguments call the subclass's override")
        func argumentsCallOverride() throws {
            #expect(
                try run(["--callback", "eventDidReachThreshold", "--activity", "daily", "--event", "games"])
                    == ["threshold games daily"])
            #expect(try run(["--callback=intervalDidStart", "--activity=bedtime"]) == ["start bedtime"])
            #expect(
                try run(["--callback", "eventWillReachThresholdWarning", "--activity", "daily", "--event", "games"])
                    == ["warning games daily"])
        }

        @Test("a callback the subclass does not override does nothing")
        func defaultDoesNothing() throws {
            #expect(try run(["--callback", "intervalWillEndWarning", "--activity", "daily"]) == [])
        }

        @Test("the environment fills in what the arguments leave out; arguments win")
        func environmentFallback() throws {
            let environment = ["SCREENTIME_CALLBACK": "intervalDidEnd", "SCREENTIME_ACTIVITY": "daily"]
            #expect(try run([], environment: environment) == ["end daily"])
            #expect(try run(["--activity", "school"], environment: environment) == ["end school"])
        }

        @Test(
            "bad arguments are usage errors",
            arguments: [
                [], ["--callback", "intervalDidStart"], ["--callback", "nope", "--activity", "a"],
                ["--callback", "eventDidReachThreshold", "--activity", "a"], ["--activity"], ["stray"],
                ["--callback", "intervalDidStart", "--activity", "a", "--colour", "red"],
            ])
        func usageErrors(arguments: [String]) {
            #expect(throws: DeviceActivityMonitorMain.UsageError.self) {
                try DeviceActivityMonitorMain.parse(arguments: arguments)
            }
        }
    }
#endif
