/// The faults iOS reports, named like `MarketplaceKitError` (spec §9), each with a sentence.
public struct DeviceError: Error, CustomStringConvertible, Equatable {
    public enum Name: String, Sendable {
        case invalidManifest
        case noSupportedVariant
        case unsupportedPlatform
        case minimumPlatformVersionNotSatisfied
        case missingCapabilities
        case invalidAlternativeDistributionPackageURL
        case invalidAlternativeDistributionPackageSignature
        case oauthTokenError
        case invalidLicense
        case missingInstallVerificationToken
        case networkError
        /// Not one of Apple's names: the install verification token did not verify (Apple's servers
        /// would refuse the install; the device simulator checks it itself).
        case invalidInstallVerificationToken
        /// Not one of Apple's names: the marketplace answered something the protocol does not allow.
        case protocolViolation
        /// Not one of Apple's names: `restore` answered a `404` failure for the app being installed
        /// (the Home Screen's "App Not Available").
        case appNotAvailable
    }

    public var name: Name
    public var message: String

    public init(_ name: Name, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name.rawValue): \(message)" }
}
