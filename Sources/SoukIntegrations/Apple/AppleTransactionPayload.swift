import Foundation

/// Signed data whose validity is judged at the moment Apple signed it (spec §4.1 step 4).
public protocol AppleSignedPayload: Codable, Sendable {
    /// When the App Store signed the data (certificates are judged at this instant).
    var signedDate: Date? { get }
    /// The kind of each top-level field, for the conversions Apple's Python library makes.
    static var fieldKinds: [String: AppleFieldKind] { get }
}

/// A StoreKit 2 signed transaction's payload (`JWSTransactionDecodedPayload`), every field of
/// spec §4.1 under Apple's names. Enumerations are kept raw (`raw…`) with typed views on top, so
/// a value Apple adds later is kept, not refused. Dates are Apple's milliseconds since 1970.
public struct AppleTransactionPayload: AppleSignedPayload, Equatable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var quantity: Int?
    public var rawType: String?
    public var appAccountToken: String?
    public var rawInAppOwnershipType: String?
    public var signedDate: Date?
    public var rawRevocationReason: Int?
    public var revocationDate: Date?
    public var isUpgraded: Bool?
    public var rawOfferType: Int?
    public var offerIdentifier: String?
    public var rawEnvironment: String?
    public var storefront: String?
    public var storefrontId: String?
    public var rawTransactionReason: String?
    public var currency: String?
    /// Milli-units of `currency` (integer).
    public var price: Int64?
    public var rawOfferDiscountType: String?
    public var appTransactionId: String?
    public var offerPeriod: String?
    public var rawRevocationType: String?
    /// The refunded share in milliunits of a percent (0…100000): 40000 is 40 %.
    public var revocationPercentage: Int?
    /// `BILLED_UPFRONT` or `MONTHLY` (a yearly subscription paid monthly).
    public var rawBillingPlanType: String?
    /// A monthly-billed commitment's progress and total.
    public var commitmentInfo: AppleTransactionCommitmentInfo?

    public init() {}

    public static let fieldKinds: [String: AppleFieldKind] = [
        "transactionId": .string, "originalTransactionId": .string, "webOrderLineItemId": .string, "bundleId": .string,
        "productId": .string, "subscriptionGroupIdentifier": .string, "purchaseDate": .integer, "originalPurchaseDate": .integer,
        "expiresDate": .integer, "quantity": .integer, "type": .string, "appAccountToken": .string, "inAppOwnershipType": .string,
        "signedDate": .integer, "revocationReason": .integer, "revocationDate": .integer, "isUpgraded": .boolean,
        "offerType": .integer, "offerIdentifier": .string, "environment": .string, "storefront": .string, "storefrontId": .string,
        "transactionReason": .string, "currency": .string, "price": .integer, "offerDiscountType": .string,
        "appTransactionId": .string, "offerPeriod": .string, "revocationType": .string, "revocationPercentage": .integer,
        "billingPlanType": .string,
    ]

    public var type: AppleTransactionType? { rawType.flatMap(AppleTransactionType.init(rawValue:)) }
    public var inAppOwnershipType: AppleOwnershipType? { rawInAppOwnershipType.flatMap(AppleOwnershipType.init(rawValue:)) }
    public var revocationReason: AppleRevocationReason? { rawRevocationReason.flatMap(AppleRevocationReason.init(rawValue:)) }
    public var offerType: AppleOfferType? { rawOfferType.flatMap(AppleOfferType.init(rawValue:)) }
    public var environment: AppleEnvironment? { rawEnvironment.flatMap(AppleEnvironment.init(rawValue:)) }
    public var transactionReason: AppleTransactionReason? { rawTransactionReason.flatMap(AppleTransactionReason.init(rawValue:)) }
    public var offerDiscountType: AppleOfferDiscountType? { rawOfferDiscountType.flatMap(AppleOfferDiscountType.init(rawValue:)) }
    public var revocationType: AppleRevocationType? { rawRevocationType.flatMap(AppleRevocationType.init(rawValue:)) }
    public var billingPlanType: AppleBillingPlanType? { rawBillingPlanType.flatMap(AppleBillingPlanType.init(rawValue:)) }

    /// A refund of part of the price (`REFUND_PRORATED`, or a share below 100 % without a type):
    /// the customer keeps access; only a full refund or a revocation ends it.
    public var isPartialRefund: Bool {
        guard revocationDate != nil || rawRevocationType != nil else { return false }
        switch revocationType {
        case .refundProrated: return true
        case .refundFull, .familyRevoke: return false
        case nil: return rawRevocationType == nil && (revocationPercentage.map { $0 < 100_000 } ?? false)
        }
    }

    /// The refunded amount in milli-units of `currency`: the price times the refunded share (the
    /// whole price when Apple gives no share).
    public var refundedAmount: Int64? {
        guard let price, revocationDate != nil || rawRevocationType != nil else { return nil }
        guard let share = revocationPercentage else { return price }
        return price * Int64(share) / 100_000
    }

    enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, webOrderLineItemId, bundleId, productId,
             subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity
        case rawType = "type"
        case appAccountToken
        case rawInAppOwnershipType = "inAppOwnershipType"
        case signedDate
        case rawRevocationReason = "revocationReason"
        case revocationDate, isUpgraded
        case rawOfferType = "offerType"
        case offerIdentifier
        case rawEnvironment = "environment"
        case storefront, storefrontId
        case rawTransactionReason = "transactionReason"
        case currency, price
        case rawOfferDiscountType = "offerDiscountType"
        case appTransactionId, offerPeriod
        case rawRevocationType = "revocationType"
        case revocationPercentage
        case rawBillingPlanType = "billingPlanType"
        case commitmentInfo
    }
}

/// A transaction's `commitmentInfo` (a yearly commitment billed monthly): prices in milli-units.
public struct AppleTransactionCommitmentInfo: Codable, Sendable, Equatable {
    public var billingPeriodNumber: Int?
    public var totalBillingPeriods: Int?
    public var commitmentExpiresDate: Date?
    public var commitmentPrice: Int64?

    public init(billingPeriodNumber: Int? = nil, totalBillingPeriods: Int? = nil, commitmentExpiresDate: Date? = nil, commitmentPrice: Int64? = nil) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
    }
}
