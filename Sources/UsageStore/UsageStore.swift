// The UsageStore module; see docs/ARCHITECTURE.md.
