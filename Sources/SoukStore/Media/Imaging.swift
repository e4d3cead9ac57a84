// App media is PNG through SoukImaging; whoever uses SoukStore's media API sees its image types.
@_exported import SoukImaging
