/// The `/.well-known/marketplace-kit` document (spec §1): where a device restores, updates and
/// licenses apps, with optional per-app overrides (each a full copy of the configuration).
public struct MarketplaceConfiguration: Sendable, Equatable {
    /// The OS polls for updates at most every 24 hours; smaller values are raised to 24.
    public static let minimumPollingHours = 24

    public var restore: String
    public var updatesURL: String
    /// Hours (not seconds: a conference demo's 43200 is a known mistake).
    public var pollingInterval: Int
    public var license: License

    public struct License: Sendable, Equatable {
        public var dynamicLicenseURL: String
        public var licenseRenewalURL: String
        public var licenseResolutionURL: String?
        public var signingCertificateURL: String
        public var encryptionCertificateURL: String

        public init(dynamicLicenseURL: String, licenseRenewalURL: String, licenseResolutionURL: String?,
                    signingCertificateURL: String, encryptionCertificateURL: String) {
            self.dynamicLicenseURL = dynamicLicenseURL
            self.licenseRenewalURL = licenseRenewalURL
            self.licenseResolutionURL = licenseResolutionURL
            self.signingCertificateURL = signingCertificateURL
            self.encryptionCertificateURL = encryptionCertificateURL
        }
    }

    public init(restore: String, updatesURL: String, pollingInterval: Int, license: License) {
        self.restore = restore
        self.updatesURL = updatesURL
        self.pollingInterval = max(pollingInterval, Self.minimumPollingHours)
        self.license = license
    }

    /// Souk's own endpoints under `publicURL`.
    public static func standard(publicURL: String, pollingInterval: Int) -> MarketplaceConfiguration {
        MarketplaceConfiguration(
            restore: publicURL + "/marketplace-kit/v1/restore",
            updatesURL: publicURL + "/marketplace-kit/v1/updates",
            pollingInterval: pollingInterval,
            license: License(
                dynamicLicenseURL: publicURL + "/marketplace-kit/v1/license",
                licenseRenewalURL: publicURL + "/marketplace-kit/v1/license/renew",
                licenseResolutionURL: publicURL + "/license/resolve",
                signingCertificateURL: publicURL + "/marketplace-kit/certificates/signing.cer",
                encryptionCertificateURL: publicURL + "/marketplace-kit/certificates/encryption.cer"))
    }

    /// The JSON object, in the documented key spelling (`restore` singular, `updates.url`,
    /// `updates.pollingInterval`, `license` as an object).
    public var jsonObject: [String: Any] {
        var license: [String: Any] = [
            "dynamicLicenseURL": self.license.dynamicLicenseURL,
            "licenseRenewalURL": self.license.licenseRenewalURL,
            "signingCertificateURL": self.license.signingCertificateURL,
            "encryptionCertificateURL": self.license.encryptionCertificateURL,
        ]
        license["licenseResolutionURL"] = self.license.licenseResolutionURL
        return ["restore": restore, "updates": ["url": updatesURL, "pollingInterval": pollingInterval], "license": license]
    }

    /// The whole document: this configuration plus `overridesByAppleItemID` when there are overrides.
    public func document(overrides: [UInt64: MarketplaceConfiguration]) -> [String: Any] {
        var object = jsonObject
        if !overrides.isEmpty {
            object["overridesByAppleItemID"] = Dictionary(uniqueKeysWithValues: overrides.map { (String($0.key), $0.value.jsonObject) })
        }
        return object
    }
}
