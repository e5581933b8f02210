/// The kinds of extension an app declares in its desktop entry, which `screentimed` runs for the app: Apple's
/// extension points of the Screen Time frameworks, each an executable.
public enum ScreenTimeExtensionKind: String, CaseIterable, Hashable, Sendable, Codable {
    /// `X-ScreenTime-Monitor=`: a `DeviceActivityMonitor`, run for the app's activities' callbacks.
    case monitor
    /// `X-ScreenTime-ShieldConfiguration=`: a `ShieldConfigurationDataSource`, asked for the text of the app's
    /// shields.
    case shieldConfiguration
    /// `X-ScreenTime-ShieldAction=`: a `ShieldActionDelegate`, asked to answer the buttons of the app's shields.
    case shieldAction
    /// `X-ScreenTime-Report=`: a `DeviceActivityReportExtension`, run to render the app's reports.
    case report

    /// The desktop entry key that declares it.
    public var desktopEntryKey: String {
        switch self {
        case .monitor: "X-ScreenTime-Monitor"
        case .shieldConfiguration: "X-ScreenTime-ShieldConfiguration"
        case .shieldAction: "X-ScreenTime-ShieldAction"
        case .report: "X-ScreenTime-Report"
        }
    }
}

extension DesktopEntry {
    /// The executable of the extension of `kind` the entry declares, or why it can't be run: the value must be an
    /// absolute path (the daemon runs it with no search path and in no shell).
    public func screenTimeExtension(_ kind: ScreenTimeExtensionKind) -> Result<String, DeclarationError>? {
        guard let value = screenTimeExtensions[kind] else { return nil }
        guard value.hasPrefix("/"), !value.contains(" ") || FileSystem.status(value) != nil else {
            return .failure(
                DeclarationError(
                    message: "desktop entry \(id): \(kind.desktopEntryKey)=\(value) is not an absolute path to an "
                        + "executable; write its full path, with no arguments"))
        }
        return .success(value)
    }

    /// A declaration in a desktop entry that can't be used, said so that its author can fix it.
    public struct DeclarationError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Which entry and key, what is wrong, how to fix it.
        public var message: String
        public var description: String { message }
    }
}
