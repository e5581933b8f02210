@_exported import enum ScreenTimeModel.ActivityCategoryPolicy
// Tokens and shield settings are the shared model's, so that the engine and the daemon enforce the very values
// an app sets.
@_exported import struct ScreenTimeModel.ActivityCategoryToken
@_exported import struct ScreenTimeModel.ApplicationToken
@_exported import struct ScreenTimeModel.ShieldSettings
@_exported import struct ScreenTimeModel.WebDomainToken
// A shield's buttons and their answers: shared with the daemon, which runs the shield-action extension.
@_exported import enum ScreenTimeModel.ShieldAction
@_exported import enum ScreenTimeModel.ShieldActionResponse
