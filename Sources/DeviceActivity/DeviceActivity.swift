// The DeviceActivity module; see docs/ARCHITECTURE.md.
