// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "screentime",
    products: [
        .library(name: "FamilyControls", targets: ["FamilyControls"]),
        .library(name: "DeviceActivity", targets: ["DeviceActivity"]),
        .library(name: "ManagedSettings", targets: ["ManagedSettings"]),
        .executable(name: "screentime", targets: ["screentime"]),
        .executable(name: "screentimed", targets: ["screentimed"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // C boundaries: each library wrapped once, in Swift, by the module above it.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CGcrypt", pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),
        .systemLibrary(
            name: "CXCB", pkgConfig: "xcb",
            providers: [
                .apt([
                    "libxcb1-dev", "libxcb-res0-dev", "libxcb-screensaver0-dev", "libxcb-ewmh-dev", "libxcb-sync-dev",
                ])
            ]),
        .systemLibrary(name: "CWaylandClient", pkgConfig: "wayland-client", providers: [.apt(["libwayland-dev"])]),
        .target(name: "CLinux"),
        // A Wayland client of the compositors' idle notifications (C listeners and protocol tables).
        .target(name: "CWayland", dependencies: ["CWaylandClient"]),
        // The package version, set by the release build.
        .target(name: "CBuildInfo"),
        // The D-Bus service's interfaces as sd-bus vtables (C macros), handled by the daemon's Swift callbacks.
        .target(name: "CScreenTimeBus", dependencies: ["CSystemd"]),

        // Pure layers: no I/O, no clock.
        .target(name: "ScreenTimeModel", swiftSettings: strict),
        .target(name: "ScreenTimeEngine", dependencies: ["ScreenTimeModel"], swiftSettings: strict),
        // SVG charts of reports (bars, donut, ranked bars): pure, no I/O.
        .target(name: "ScreenTimeCharts", dependencies: ["ScreenTimeModel"], swiftSettings: strict),

        // Linux-facing layers.
        .target(
            name: "LinuxActivity",
            dependencies: [
                "ScreenTimeModel", "CSystemd", "CLinux", "CGcrypt", "CXCB", "CWayland",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        .target(
            name: "Enforcement",
            dependencies: [
                "ScreenTimeModel", "CLinux", "CSystemd",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),
        .target(
            name: "UsageStore",
            dependencies: ["ScreenTimeModel", "ScreenTimeEngine", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),

        // The daemon's D-Bus API as both sides see it: names, errors, and the client connection.
        .target(
            name: "ScreenTimeBus", dependencies: ["ScreenTimeModel", "ScreenTimeEngine", "LinuxActivity"],
            swiftSettings: strict),

        // Apple-shaped public API, clients of the daemon over D-Bus.
        .target(name: "FamilyControls", dependencies: ["ScreenTimeModel", "ScreenTimeBus"], swiftSettings: strict),
        .target(
            name: "ManagedSettings", dependencies: ["ScreenTimeModel", "FamilyControls", "ScreenTimeBus"],
            swiftSettings: strict),
        .target(
            name: "DeviceActivity",
            dependencies: [
                "ScreenTimeModel", "ScreenTimeEngine", "FamilyControls", "ManagedSettings", "ScreenTimeBus", "CLinux",
            ],
            swiftSettings: strict),

        // Composition root and executables.
        .target(
            name: "ScreenTimeDaemon",
            dependencies: [
                "ScreenTimeModel", "ScreenTimeEngine", "LinuxActivity", "Enforcement", "UsageStore",
                "ScreenTimeBus", "CScreenTimeBus", "CSystemd", "CBuildInfo",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "screentime",
            dependencies: [
                "LinuxActivity", "ScreenTimeModel", "ScreenTimeDaemon", "ScreenTimeEngine", "UsageStore", "Enforcement",
                "ScreenTimeBus", "FamilyControls", "ScreenTimeCharts",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "screentimed",
            dependencies: [
                "ScreenTimeDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        .testTarget(name: "ScreenTimeModelTests", dependencies: ["ScreenTimeModel"], swiftSettings: strict),
        .testTarget(name: "ScreenTimeChartsTests", dependencies: ["ScreenTimeCharts"], swiftSettings: strict),
        .testTarget(
            name: "ScreenTimeEngineTests",
            dependencies: [
                "ScreenTimeEngine", "DeviceActivity", "ManagedSettings", "FamilyControls",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict),
        .testTarget(name: "LinuxActivityTests", dependencies: ["LinuxActivity", "Enforcement"], swiftSettings: strict),
        .testTarget(name: "EnforcementTests", dependencies: ["Enforcement"], swiftSettings: strict),
        .testTarget(name: "UsageStoreTests", dependencies: ["UsageStore"], swiftSettings: strict),
        .testTarget(
            name: "ScreenTimeDaemonTests",
            dependencies: [
                "ScreenTimeDaemon", "DeviceActivity", "UsageStore", "Enforcement", "ScreenTimeBus", "ManagedSettings",
                "FamilyControls",
            ],
            swiftSettings: strict),
    ]
)

package.targets += [
    .target(name: "BenchmarkSupport", swiftSettings: strict),
    .executableTarget(
        name: "EngineBenchmark", dependencies: ["ScreenTimeModel", "ScreenTimeEngine"], swiftSettings: strict),
    .executableTarget(
        name: "CollectorBenchmark", dependencies: ["ScreenTimeModel", "LinuxActivity", "BenchmarkSupport"],
        swiftSettings: strict),
    .executableTarget(
        name: "ReportBenchmark",
        dependencies: [
            "ScreenTimeModel", "UsageStore", "BenchmarkSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ],
        swiftSettings: strict),
    .executableTarget(
        name: "DaemonBenchmark", dependencies: ["ScreenTimeModel", "ScreenTimeDaemon", "BenchmarkSupport"],
        swiftSettings: strict),
]
