extension Policy {
    /// No limits, no downtime: what is in force until a valid policy file is read.
    public static let empty = Policy(alwaysAllowed: [], limits: [], downtimes: [], shield: ShieldSettings())
}
