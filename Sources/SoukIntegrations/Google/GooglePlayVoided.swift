import Foundation

/// One entry of `purchases.voidedpurchases.list` (Android Publisher v3 `VoidedPurchase`): a purchase
/// that was refunded, charged back or revoked. Google encodes int64 fields as JSON strings; both
/// spellings are read. The purchase token is a secret: it is matched against stored purchases,
/// never logged.
public struct GoogleVoidedPurchase: Sendable, Equatable, Decodable {
    public var kind: String?
    public var purchaseToken: String
    public var purchaseTimeMillis: Int64?
    public var voidedTimeMillis: Int64
    public var orderId: String?
    /// 0 user, 1 developer, 2 Google.
    public var voidedSource: Int?
    /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly
    /// fraud, 7 chargeback, 8 unacknowledged purchase.
    public var voidedReason: Int?
    /// Set for a quantity-based partial refund (`includeQuantityBasedPartialRefund`): how many of the
    /// purchase's quantity were refunded.
    public var voidedQuantity: Int?

    public init(purchaseToken: String, voidedTimeMillis: Int64, orderId: String? = nil, voidedSource: Int? = nil,
                voidedReason: Int? = nil, voidedQuantity: Int? = nil) {
        self.purchaseToken = purchaseToken
        self.voidedTimeMillis = voidedTimeMillis
        self.orderId = orderId
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.voidedQuantity = voidedQuantity
    }

    enum CodingKeys: String, CodingKey {
        case kind, purchaseToken, purchaseTimeMillis, voidedTimeMillis, orderId, voidedSource, voidedReason, voidedQuantity
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try? c.decodeIfPresent(String.self, forKey: .kind)
        purchaseToken = try c.decode(String.self, forKey: .purchaseToken)
        purchaseTimeMillis = c.lenientInt64(.purchaseTimeMillis)
        guard let voided = c.lenientInt64(.voidedTimeMillis) else {
            throw DecodingError.dataCorruptedError(forKey: .voidedTimeMillis, in: c, debugDescription: "voidedTimeMillis is missing")
        }
        voidedTimeMillis = voided
        orderId = try? c.decodeIfPresent(String.self, forKey: .orderId)
        voidedSource = c.lenientInt64(.voidedSource).map { Int($0) }
        voidedReason = c.lenientInt64(.voidedReason).map { Int($0) }
        voidedQuantity = c.lenientInt64(.voidedQuantity).map { Int($0) }
    }

    /// When Google voided it.
    public var voidedAt: Date { Date(timeIntervalSince1970: Double(voidedTimeMillis) / 1000) }

    /// Google's reason as a word for the revocation reason (`voided: chargeback`).
    public var reasonName: String {
        let names = [0: "other", 1: "remorse", 2: "not_received", 3: "defective", 4: "accidental_purchase", 5: "fraud",
                     6: "friendly_fraud", 7: "chargeback", 8: "unacknowledged_purchase"]
        return voidedReason.map { names[$0] ?? "reason_\($0)" } ?? "other"
    }
}

/// One page of `purchases.voidedpurchases.list`: the entries and, when more follow, the token of
/// the next page (`tokenPagination.nextPageToken`).
public struct GoogleVoidedPurchasePage: Sendable, Equatable, Decodable {
    public struct TokenPagination: Sendable, Equatable, Decodable {
        public var nextPageToken: String?
        public var previousPageToken: String?
    }
    public struct PageInfo: Sendable, Equatable, Decodable {
        public var totalResults: Int?
        public var resultPerPage: Int?
        public var startIndex: Int?
    }

    public var voidedPurchases: [GoogleVoidedPurchase]?
    public var tokenPagination: TokenPagination?
    public var pageInfo: PageInfo?

    public init(voidedPurchases: [GoogleVoidedPurchase], nextPageToken: String?) {
        self.voidedPurchases = voidedPurchases
        self.tokenPagination = nextPageToken.map { TokenPagination(nextPageToken: $0, previousPageToken: nil) }
    }

    /// The next page's token, when Google gave a non-empty one.
    public var nextPageToken: String? {
        guard let token = tokenPagination?.nextPageToken, !token.isEmpty else { return nil }
        return token
    }
}
