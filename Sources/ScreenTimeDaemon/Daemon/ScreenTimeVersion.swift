import CBuildInfo

/// The version of the package these binaries belong to.
public enum ScreenTimeVersion {
    /// The package version (`0.1.0-1`) of a release build, `development build` otherwise: what `--version` prints.
    public static let current = String(cString: screentime_version())
}
