// The Enforcement module; see docs/ARCHITECTURE.md.
