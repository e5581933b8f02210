// The ScreenTimeEngine module; see docs/ARCHITECTURE.md.
