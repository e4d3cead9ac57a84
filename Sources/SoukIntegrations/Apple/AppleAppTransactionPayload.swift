import Foundation

/// A signed app transaction's payload (StoreKit's `AppTransaction`, the App Store Server
/// Library's `AppTransaction`): the proof that this Apple account bought or downloaded the app,
/// and which version it first had — what an app that went from paid to free reads to honour its
/// early buyers. `receiptType` is its environment. Dates are Apple's milliseconds since 1970; the
/// chain is judged at `receiptCreationDate` (it carries no `signedDate` in Apple's documentation).
public struct AppleAppTransactionPayload: AppleSignedPayload, Equatable {
    /// `Production`, `Sandbox`, `Xcode`, `LocalTesting` (Apple's environments).
    public var rawReceiptType: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    public var receiptCreationDate: Date?
    public var originalPurchaseDate: Date?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var preorderDate: Date?
    public var appTransactionId: String?
    /// `iOS`, `macOS`, `tvOS`, `visionOS` (kept raw: Apple adds platforms).
    public var rawOriginalPlatform: String?
    public var signedDate: Date?

    public init() {}

    public static let fieldKinds: [String: AppleFieldKind] = [
        "receiptType": .string, "appAppleId": .integer, "bundleId": .string, "applicationVersion": .string,
        "versionExternalIdentifier": .integer, "receiptCreationDate": .integer, "originalPurchaseDate": .integer,
        "originalApplicationVersion": .string, "deviceVerification": .string, "deviceVerificationNonce": .string,
        "preorderDate": .integer, "appTransactionId": .string, "originalPlatform": .string, "signedDate": .integer,
    ]

    public var environment: AppleEnvironment? { rawReceiptType.flatMap(AppleEnvironment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawReceiptType = "receiptType"
        case appAppleId, bundleId, applicationVersion, versionExternalIdentifier, receiptCreationDate, originalPurchaseDate,
             originalApplicationVersion, deviceVerification, deviceVerificationNonce, preorderDate, appTransactionId
        case rawOriginalPlatform = "originalPlatform"
        case signedDate
    }
}
