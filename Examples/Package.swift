// swift-tools-version:6.1
import PackageDescription

// Four apps written against Apple's Screen Time API as this project offers it, each one executable that is both the
// app and its extensions (a monitor, a shield configuration, a report), chosen by the arguments the daemon runs it
// with. Build with `swift build` in this folder; `Tests/Integration/examples.sh` runs each against the real daemon.
let package = Package(
    name: "ScreenTimeExamples",
    dependencies: [.package(name: "screentime", path: "..")],
    targets: [
        .target(
            name: "ExampleSupport",
            dependencies: [
                .product(name: "FamilyControls", package: "screentime"),
                .product(name: "DeviceActivity", package: "screentime"),
                .product(name: "ManagedSettings", package: "screentime"),
            ]),
        .executableTarget(name: "Homework", dependencies: ["ExampleSupport"]),
        .executableTarget(name: "Streaks", dependencies: ["ExampleSupport"]),
        .executableTarget(name: "Barebones", dependencies: ["ExampleSupport"]),
        .executableTarget(name: "ScreenTimeSample", dependencies: ["ExampleSupport"]),
    ]
)
