// The ManagedSettings module; see docs/ARCHITECTURE.md.
