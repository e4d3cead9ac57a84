import Foundation

/// A decoded App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`): Apple POSTs
/// `{"signedPayload": "<JWS>"}`. The signed transaction and renewal info inside `data` are JWS of
/// their own, verified separately. Deduplicate on `notificationUUID`.
public struct AppleNotificationPayload: AppleSignedPayload, Equatable {
    public var rawNotificationType: String?
    public var rawSubtype: String?
    public var notificationUUID: String?
    public var data: NotificationData?
    public var summary: Summary?
    public var externalPurchaseToken: ExternalPurchaseToken?
    public var version: String?
    public var signedDate: Date?

    public init() {}

    public static let fieldKinds: [String: AppleFieldKind] = [
        "notificationType": .string, "subtype": .string, "notificationUUID": .string, "version": .string, "signedDate": .integer,
    ]

    public var notificationType: AppleNotificationType? { rawNotificationType.flatMap(AppleNotificationType.init(rawValue:)) }
    public var subtype: AppleNotificationSubtype? { rawSubtype.flatMap(AppleNotificationSubtype.init(rawValue:)) }

    /// `data`: the app and the signed transaction / renewal info the notification is about.
    public struct NotificationData: Codable, Sendable, Equatable {
        public var rawEnvironment: String?
        public var appAppleId: Int64?
        public var bundleId: String?
        public var bundleVersion: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        public var rawStatus: Int?
        public var consumptionRequestReason: String?

        public init() {}

        public var environment: AppleEnvironment? { rawEnvironment.flatMap(AppleEnvironment.init(rawValue:)) }
        public var status: AppleSubscriptionStatus? { rawStatus.flatMap(AppleSubscriptionStatus.init(rawValue:)) }

        enum CodingKeys: String, CodingKey {
            case rawEnvironment = "environment"
            case appAppleId, bundleId, bundleVersion, signedTransactionInfo, signedRenewalInfo
            case rawStatus = "status"
            case consumptionRequestReason
        }
    }

    /// `summary`: sent instead of `data` for a renewal-date extension request's outcome.
    public struct Summary: Codable, Sendable, Equatable {
        public var rawEnvironment: String?
        public var appAppleId: Int64?
        public var bundleId: String?
        public var productId: String?
        public var requestIdentifier: String?
        public var storefrontCountryCodes: [String]?
        public var succeededCount: Int64?
        public var failedCount: Int64?

        public init() {}

        public var environment: AppleEnvironment? { rawEnvironment.flatMap(AppleEnvironment.init(rawValue:)) }

        enum CodingKeys: String, CodingKey {
            case rawEnvironment = "environment"
            case appAppleId, bundleId, productId, requestIdentifier, storefrontCountryCodes, succeededCount, failedCount
        }
    }

    /// `externalPurchaseToken`: sent instead of `data` for external purchase notifications.
    public struct ExternalPurchaseToken: Codable, Sendable, Equatable {
        public var externalPurchaseId: String?
        public var tokenCreationDate: Date?
        public var appAppleId: Int64?
        public var bundleId: String?

        public init() {}
    }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notificationType"
        case rawSubtype = "subtype"
        case notificationUUID, data, summary, externalPurchaseToken, version, signedDate
    }
}
