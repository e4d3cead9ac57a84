import Foundation
import Hummingbird

/// The answer to a dynamic license request (spec §3.1): the license blob and the apps refused.
struct LicenseResponse: Codable, Equatable {
    /// The license blob, base64.
    var license: String
    /// AppleItemIDs (decimal strings) that got no license.
    var unlicensedApps: [String]

    var response: Response { .json(bytes: WireJSON.encode(self), cacheControl: "no-store") }
}

/// The answer to a renewal (spec §3.2): the renewed licenses and the ones that will not be.
struct LicenseRenewalResponse: Codable, Equatable {
    /// The license blob, base64.
    var license: String
    /// License ids (decimal strings) that are not renewed: their apps stop launching when they expire.
    var ineligibleLicenses: [String]

    var response: Response { .json(bytes: WireJSON.encode(self), cacheControl: "no-store") }
}
