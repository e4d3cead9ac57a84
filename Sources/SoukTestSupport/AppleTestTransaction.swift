import Foundation
import SoukCore

/// A StoreKit 2 transaction payload for `AppleTestChain.signTransaction`, under Apple's field
/// names (spec §4.1). Every field is a `var`; dates encode as whole milliseconds since 1970.
/// `rawType`, `environment`, `inAppOwnershipType` are free strings so tests can send values
/// Apple may add later; the `type:` initializer parameter takes Souk's `ProductType`.
public struct AppleTestTransaction: Codable, Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var bundleId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Date
    public var originalPurchaseDate: Date
    public var expiresDate: Date?
    public var quantity: Int
    public var rawType: String
    public var appAccountToken: String?
    public var inAppOwnershipType: String
    public var signedDate: Date
    public var revocationReason: Int?
    public var revocationDate: Date?
    public var isUpgraded: Bool?
    public var offerType: Int?
    public var offerIdentifier: String?
    public var environment: String
    public var storefront: String
    public var storefrontId: String
    public var transactionReason: String
    public var currency: String?
    public var price: Int64?
    /// FREE_TRIAL, PAY_AS_YOU_GO, PAY_UP_FRONT… with `offerType`.
    public var offerDiscountType: String?
    /// REFUND_FULL, REFUND_PRORATED, FAMILY_REVOKE, with `revocationPercentage` (milliunits).
    public var revocationType: String?
    public var revocationPercentage: Int?
    /// BILLED_UPFRONT or MONTHLY, with `commitmentInfo` for a monthly-billed commitment.
    public var billingPlanType: String?
    public var commitmentInfo: AppleTestCommitmentInfo?

    /// - Parameters:
    ///   - transactionId: default a fresh random 16-digit id (Apple's ids are decimal strings).
    ///   - originalTransactionId: default `transactionId`.
    ///   - environment: `Production` (default), `Sandbox`, or anything else for the negative cases.
    ///   - purchaseDate: default now (whole milliseconds); `signedDate` defaults to it.
    public init(bundleId: String, productId: String, type: ProductType = .nonConsumable,
                transactionId: String = AppleTestTransaction.randomId(), originalTransactionId: String? = nil,
                environment: String = "Production", purchaseDate: Date = Date(), signedDate: Date? = nil,
                expiresDate: Date? = nil, quantity: Int = 1, revocationDate: Date? = nil, revocationReason: Int? = nil,
                inAppOwnershipType: String = "PURCHASED", appAccountToken: String? = nil,
                subscriptionGroupIdentifier: String? = nil, currency: String? = "USD", price: Int64? = 4990) {
        let purchase = Self.wholeMilliseconds(purchaseDate)
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.webOrderLineItemId = type == .autoRenewable ? Self.randomId() : nil
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier ?? (type == .autoRenewable ? "21000000" : nil)
        self.purchaseDate = purchase
        self.originalPurchaseDate = purchase
        self.expiresDate = expiresDate.map(Self.wholeMilliseconds)
        self.quantity = quantity
        self.rawType = Self.appleType(type)
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = Self.wholeMilliseconds(signedDate ?? purchaseDate)
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate.map(Self.wholeMilliseconds)
        self.environment = environment
        self.storefront = "USA"
        self.storefrontId = "143441"
        self.transactionReason = "PURCHASE"
        self.currency = currency
        self.price = price
    }

    /// Apple's spelling of a product type.
    public static func appleType(_ type: ProductType) -> String {
        switch type {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        }
    }

    /// A random 16-digit decimal id.
    public static func randomId() -> String {
        String(UInt64.random(in: 2_000_000_000_000_000...2_999_999_999_999_999))
    }

    /// The payload's JSON, as `AppleTestChain` signs it.
    public var jsonData: Data { Self.encode(self) }

    static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        do {
            return try encoder.encode(value)
        } catch {
            preconditionFailure("encoding a test payload failed: \(error)")
        }
    }

    enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, webOrderLineItemId, bundleId, productId, subscriptionGroupIdentifier,
             purchaseDate, originalPurchaseDate, expiresDate, quantity
        case rawType = "type"
        case appAccountToken, inAppOwnershipType, signedDate, revocationReason, revocationDate, isUpgraded, offerType,
             offerIdentifier, environment, storefront, storefrontId, transactionReason, currency, price, offerDiscountType,
             revocationType, revocationPercentage, billingPlanType, commitmentInfo
    }
}

/// A transaction's `commitmentInfo` (Apple's `TransactionCommitmentInfo`).
public struct AppleTestCommitmentInfo: Codable, Sendable, Equatable {
    public var billingPeriodNumber: Int
    public var totalBillingPeriods: Int
    public var commitmentExpiresDate: Date
    public var commitmentPrice: Int64

    public init(billingPeriodNumber: Int, totalBillingPeriods: Int, commitmentExpiresDate: Date, commitmentPrice: Int64) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.commitmentExpiresDate = AppleTestTransaction.wholeMilliseconds(commitmentExpiresDate)
        self.commitmentPrice = commitmentPrice
    }
}

/// A signed renewal info payload (`JWSRenewalInfoDecodedPayload`) for `AppleTestChain.sign`, under
/// Apple's field names; dates encode as whole milliseconds.
public struct AppleTestRenewalInfo: Codable, Sendable, Equatable {
    public var originalTransactionId: String
    public var productId: String
    public var autoRenewProductId: String
    /// 1 on, 0 off.
    public var autoRenewStatus: Int
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Date?
    public var priceIncreaseStatus: Int?
    public var offerType: Int?
    public var offerDiscountType: String?
    public var renewalDate: Date?
    public var signedDate: Date
    public var environment: String
    public var recentSubscriptionStartDate: Date?
    public var currency: String?
    public var renewalPrice: Int64?

    public init(originalTransactionId: String, productId: String, autoRenewProductId: String? = nil, autoRenewStatus: Int = 1,
                environment: String = "Production", signedDate: Date = Date(), renewalDate: Date? = nil,
                gracePeriodExpiresDate: Date? = nil, isInBillingRetryPeriod: Bool? = nil, expirationIntent: Int? = nil) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId ?? productId
        self.autoRenewStatus = autoRenewStatus
        self.environment = environment
        self.signedDate = AppleTestTransaction.wholeMilliseconds(signedDate)
        self.renewalDate = renewalDate.map(AppleTestTransaction.wholeMilliseconds)
        self.gracePeriodExpiresDate = gracePeriodExpiresDate.map(AppleTestTransaction.wholeMilliseconds)
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.expirationIntent = expirationIntent
        self.currency = "USD"
        self.renewalPrice = 4990
    }
}

/// An App Store Server Notification V2 payload (`ResponseBodyV2DecodedPayload`) for
/// `AppleTestChain.sign`; `body(_:)` wraps the signed payload as Apple POSTs it.
public struct AppleTestNotification: Codable, Sendable, Equatable {
    public struct Payload: Codable, Sendable, Equatable {
        public var environment: String
        public var appAppleId: Int64?
        public var bundleId: String
        public var bundleVersion: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        public var status: Int?
        /// CONSUMPTION_REQUEST's reason (UNINTENDED_PURCHASE, FULFILLMENT_ISSUE, …).
        public var consumptionRequestReason: String?

        public init(environment: String, appAppleId: Int64?, bundleId: String, signedTransactionInfo: String? = nil,
                    signedRenewalInfo: String? = nil, status: Int? = nil) {
            self.environment = environment
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.bundleVersion = "1"
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.status = status
        }
    }

    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    public var data: Payload?
    public var version: String
    public var signedDate: Date

    public init(type: String, subtype: String? = nil, notificationUUID: String = UUID().uuidString.lowercased(), data: Payload?,
                signedDate: Date = Date()) {
        self.notificationType = type
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = "2.0"
        self.signedDate = AppleTestTransaction.wholeMilliseconds(signedDate)
    }

    /// Apple's request body: `{"signedPayload": "<JWS>"}`.
    public static func body(_ signedPayload: String) -> Data {
        AppleTestTransaction.encode(["signedPayload": signedPayload])
    }
}
