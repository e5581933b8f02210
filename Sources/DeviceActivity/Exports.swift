// Names and tokens are the shared model's; the engine's time and action types are what a program driving its own
// engine, or reading a monitor's callbacks, works with.
@_exported import struct ScreenTimeModel.ActivityCategoryToken
@_exported import struct ScreenTimeModel.ActivityEventName
@_exported import struct ScreenTimeModel.ApplicationToken
@_exported import struct ScreenTimeModel.DeviceActivityName
@_exported import enum ScreenTimeModel.MonitorCallback
@_exported import struct ScreenTimeModel.WebDomainToken
