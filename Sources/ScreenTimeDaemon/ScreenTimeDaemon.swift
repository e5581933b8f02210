// The ScreenTimeDaemon module; see docs/ARCHITECTURE.md.
