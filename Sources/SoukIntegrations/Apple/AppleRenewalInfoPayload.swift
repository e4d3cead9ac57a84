import Foundation

/// A signed renewal info's payload (`JWSRenewalInfoDecodedPayload`). It carries no `bundleId`:
/// Apple's library checks only its environment, and so does `AppleSignedDataVerifier`.
public struct AppleRenewalInfoPayload: AppleSignedPayload, Equatable {
    public var rawExpirationIntent: Int?
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    public var rawAutoRenewStatus: Int?
    public var isInBillingRetryPeriod: Bool?
    public var rawPriceIncreaseStatus: Int?
    public var gracePeriodExpiresDate: Date?
    public var rawOfferType: Int?
    public var offerIdentifier: String?
    public var signedDate: Date?
    public var rawEnvironment: String?
    public var recentSubscriptionStartDate: Date?
    public var renewalDate: Date?
    public var currency: String?
    /// Milli-units of `currency`.
    public var renewalPrice: Int64?
    public var rawOfferDiscountType: String?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var offerPeriod: String?

    public init() {}

    public static let fieldKinds: [String: AppleFieldKind] = [
        "expirationIntent": .integer, "originalTransactionId": .string, "autoRenewProductId": .string, "productId": .string,
        "autoRenewStatus": .integer, "isInBillingRetryPeriod": .boolean, "priceIncreaseStatus": .integer,
        "gracePeriodExpiresDate": .integer, "offerType": .integer, "offerIdentifier": .string, "signedDate": .integer,
        "environment": .string, "recentSubscriptionStartDate": .integer, "renewalDate": .integer, "currency": .string,
        "renewalPrice": .integer, "offerDiscountType": .string, "appAccountToken": .string, "appTransactionId": .string,
        "offerPeriod": .string,
    ]

    public var expirationIntent: AppleExpirationIntent? { rawExpirationIntent.flatMap(AppleExpirationIntent.init(rawValue:)) }
    public var autoRenewStatus: AppleAutoRenewStatus? { rawAutoRenewStatus.flatMap(AppleAutoRenewStatus.init(rawValue:)) }
    public var priceIncreaseStatus: ApplePriceIncreaseStatus? { rawPriceIncreaseStatus.flatMap(ApplePriceIncreaseStatus.init(rawValue:)) }
    public var offerType: AppleOfferType? { rawOfferType.flatMap(AppleOfferType.init(rawValue:)) }
    public var environment: AppleEnvironment? { rawEnvironment.flatMap(AppleEnvironment.init(rawValue:)) }
    public var offerDiscountType: AppleOfferDiscountType? { rawOfferDiscountType.flatMap(AppleOfferDiscountType.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawExpirationIntent = "expirationIntent"
        case originalTransactionId, autoRenewProductId, productId
        case rawAutoRenewStatus = "autoRenewStatus"
        case isInBillingRetryPeriod
        case rawPriceIncreaseStatus = "priceIncreaseStatus"
        case gracePeriodExpiresDate
        case rawOfferType = "offerType"
        case offerIdentifier, signedDate
        case rawEnvironment = "environment"
        case recentSubscriptionStartDate, renewalDate, currency, renewalPrice
        case rawOfferDiscountType = "offerDiscountType"
        case eligibleWinBackOfferIds, appAccountToken, appTransactionId, offerPeriod
    }
}
