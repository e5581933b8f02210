import ScreenTimeModel

// SystemPackage declares its own `UserID`; inside this module the name means the model's.
public typealias UserID = ScreenTimeModel.UserID
