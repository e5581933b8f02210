// The token types are the shared model's, so that every module and the daemon speak of the same values.
@_exported import struct ScreenTimeModel.ActivityCategoryToken
@_exported import struct ScreenTimeModel.ApplicationToken
@_exported import struct ScreenTimeModel.WebDomainToken
