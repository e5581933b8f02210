// The FamilyControls module; see docs/ARCHITECTURE.md.
