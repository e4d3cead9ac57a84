import Foundation
import SoukCore

/// Google's answer about one purchase: the resource, or the status that says it does not exist for
/// this package and product (404, 410, 400). `reason` is Google's `errors[].reason` or `status`
/// (`purchaseTokenDoesNotMatchProductId`, `NOT_FOUND`…), never the token.
public enum GoogleAnswer<Value: Sendable>: Sendable {
    case found(Value)
    case rejected(status: Int, reason: String?)
}

extension GoogleAnswer: Equatable where Value: Equatable {}

/// Nothing more to say: a call without a body in its answer (acknowledge, consume) succeeded.
public struct GoogleDone: Sendable, Equatable {
    public init() {}
}

/// `purchases.products` (Android Publisher v3 `ProductPurchase`). Google encodes int64 fields as JSON
/// strings; both spellings are read.
public struct GoogleProductPurchase: Sendable, Equatable, Decodable {
    public var kind: String?
    public var purchaseTimeMillis: Int64?
    /// 0 purchased, 1 cancelled, 2 pending.
    public var purchaseState: Int?
    /// 0 yet to be consumed, 1 consumed.
    public var consumptionState: Int?
    public var developerPayload: String?
    public var orderId: String?
    /// 0 test (licence tester), 1 promo, 2 rewarded; absent for ordinary purchases.
    public var purchaseType: Int?
    /// 0 yet to be acknowledged, 1 acknowledged.
    public var acknowledgementState: Int?
    public var purchaseToken: String?
    public var productId: String?
    public var quantity: Int?
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    public var regionCode: String?
    public var refundableQuantity: Int?

    public init(purchaseTimeMillis: Int64? = nil, purchaseState: Int? = nil, consumptionState: Int? = nil, orderId: String? = nil,
                purchaseType: Int? = nil, acknowledgementState: Int? = nil, productId: String? = nil, quantity: Int? = nil) {
        self.purchaseTimeMillis = purchaseTimeMillis
        self.purchaseState = purchaseState
        self.consumptionState = consumptionState
        self.orderId = orderId
        self.purchaseType = purchaseType
        self.acknowledgementState = acknowledgementState
        self.productId = productId
        self.quantity = quantity
    }

    enum CodingKeys: String, CodingKey {
        case kind, purchaseTimeMillis, purchaseState, consumptionState, developerPayload, orderId, purchaseType,
             acknowledgementState, purchaseToken, productId, quantity, obfuscatedExternalAccountId, obfuscatedExternalProfileId,
             regionCode, refundableQuantity
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
        purchaseTimeMillis = c.lenientInt64(.purchaseTimeMillis)
        purchaseState = c.lenientInt64(.purchaseState).map { Int($0) }
        consumptionState = c.lenientInt64(.consumptionState).map { Int($0) }
        developerPayload = try? c.decodeIfPresent(String.self, forKey: .developerPayload)
        orderId = try? c.decodeIfPresent(String.self, forKey: .orderId)
        purchaseType = c.lenientInt64(.purchaseType).map { Int($0) }
        acknowledgementState = c.lenientInt64(.acknowledgementState).map { Int($0) }
        purchaseToken = try? c.decodeIfPresent(String.self, forKey: .purchaseToken)
        productId = try? c.decodeIfPresent(String.self, forKey: .productId)
        quantity = c.lenientInt64(.quantity).map { Int($0) }
        obfuscatedExternalAccountId = try? c.decodeIfPresent(String.self, forKey: .obfuscatedExternalAccountId)
        obfuscatedExternalProfileId = try? c.decodeIfPresent(String.self, forKey: .obfuscatedExternalProfileId)
        regionCode = try? c.decodeIfPresent(String.self, forKey: .regionCode)
        refundableQuantity = c.lenientInt64(.refundableQuantity).map { Int($0) }
    }
}

/// `purchases.subscriptionsv2` (`SubscriptionPurchaseV2`): only the fields Souk's lifecycle reads.
/// Unknown enum values are kept as strings, so a new state Google adds cannot break decoding.
public struct GoogleSubscriptionPurchaseV2: Sendable, Equatable, Decodable {
    public struct LineItem: Sendable, Equatable, Decodable {
        public struct AutoRenewingPlan: Sendable, Equatable, Decodable {
            public var autoRenewEnabled: Bool?
            /// The plan's current recurring price (without discounts; Google: taxes excluded).
            public var recurringPrice: GoogleMoney?
        }
        public struct PrepaidPlan: Sendable, Equatable, Decodable {
            public var allowExtendAfterTime: String?
        }
        public struct OfferDetails: Sendable, Equatable, Decodable {
            public var basePlanId: String?
            public var offerId: String?
            public var offerTags: [String]?
        }
        /// Which phase of the offer the current period is in; each member is an empty object when set.
        public struct OfferPhase: Sendable, Equatable, Decodable {
            public var basePrice: Empty?
            public var freeTrial: Empty?
            public var introductoryPrice: Empty?
            public var prorationPeriod: Empty?
        }
        public struct DeferredItemReplacement: Sendable, Equatable, Decodable {
            public var productId: String?
        }
        public struct Empty: Sendable, Equatable, Decodable {}

        public var productId: String?
        public var expiryTime: String?
        public var autoRenewingPlan: AutoRenewingPlan?
        public var prepaidPlan: PrepaidPlan?
        public var offerDetails: OfferDetails?
        public var offerPhase: OfferPhase?
        public var deferredItemReplacement: DeferredItemReplacement?
        public var latestSuccessfulOrderId: String?
    }
    public struct ExternalAccountIdentifiers: Sendable, Equatable, Decodable {
        public var externalAccountId: String?
        public var obfuscatedExternalAccountId: String?
        public var obfuscatedExternalProfileId: String?
    }
    public struct PausedStateContext: Sendable, Equatable, Decodable {
        public var autoResumeTime: String?
    }
    public struct TestPurchase: Sendable, Equatable, Decodable {}

    public var kind: String?
    public var regionCode: String?
    public var lineItems: [LineItem]?
    public var startTime: String?
    /// `SUBSCRIPTION_STATE_ACTIVE`, `…_CANCELED`, `…_IN_GRACE_PERIOD`, `…_ON_HOLD`, `…_PAUSED`,
    /// `…_EXPIRED`, `…_PENDING`, `…_PENDING_PURCHASE_CANCELED`.
    public var subscriptionState: String?
    /// Deprecated by Google in favour of `lineItems[].latestSuccessfulOrderId`; read as a fallback.
    public var latestOrderId: String?
    public var linkedPurchaseToken: String?
    public var pausedStateContext: PausedStateContext?
    /// Present (an empty object) for a licence tester's purchase.
    public var testPurchase: TestPurchase?
    /// `ACKNOWLEDGEMENT_STATE_PENDING` or `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`.
    public var acknowledgementState: String?
    public var externalAccountIdentifiers: ExternalAccountIdentifiers?
}

extension KeyedDecodingContainer {
    /// An int64 Google wrote as a JSON string ("1700000000000") or number.
    func lenientInt64(_ key: Key) -> Int64? {
        if let text = try? decodeIfPresent(String.self, forKey: key) { return Int64(text) }
        if let number = try? decodeIfPresent(Int64.self, forKey: key) { return number }
        if let number = try? decodeIfPresent(Double.self, forKey: key) { return Int64(number) }
        return nil
    }
}

/// RFC 3339 times as Google writes them: `Z` or an offset, 0, 3, 6 or 9 fractional digits.
enum GoogleTime {
    static func parse(_ text: String?) -> Date? {
        guard var text, !text.isEmpty else { return nil }
        var fraction = 0.0
        if let dot = text.firstIndex(of: "."), let end = text[dot...].firstIndex(where: { !$0.isNumber && $0 != "." }) {
            fraction = Double("0" + text[dot..<end]) ?? 0
            text.removeSubrange(dot..<end)
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { $0.addingTimeInterval(fraction) }
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
