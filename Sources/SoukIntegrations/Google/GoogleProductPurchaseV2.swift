import Foundation

/// `purchases.productsv2` (Android Publisher v3 `ProductPurchaseV2`): a one-time purchase with its
/// line items, each naming the purchase option and offer it was bought through. Unknown enum values
/// are kept as strings, so a state Google adds cannot break decoding.
public struct GoogleProductPurchaseV2: Sendable, Equatable, Decodable {
    public struct OfferDetails: Sendable, Equatable, Decodable {
        public var offerId: String?
        public var purchaseOptionId: String?
        public var offerTags: [String]?
        public var quantity: Int?
        public var refundableQuantity: Int?
        /// `CONSUMPTION_STATE_YET_TO_BE_CONSUMED` or `CONSUMPTION_STATE_CONSUMED`.
        public var consumptionState: String?

        enum CodingKeys: String, CodingKey {
            case offerId, purchaseOptionId, offerTags, quantity, refundableQuantity, consumptionState
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            offerId = try? c.decodeIfPresent(String.self, forKey: .offerId)
            purchaseOptionId = try? c.decodeIfPresent(String.self, forKey: .purchaseOptionId)
            offerTags = try? c.decodeIfPresent([String].self, forKey: .offerTags)
            quantity = c.lenientInt64(.quantity).map { Int($0) }
            refundableQuantity = c.lenientInt64(.refundableQuantity).map { Int($0) }
            consumptionState = try? c.decodeIfPresent(String.self, forKey: .consumptionState)
        }
    }
    public struct LineItem: Sendable, Equatable, Decodable {
        public var productId: String?
        public var productOfferDetails: OfferDetails?
    }
    public struct PurchaseStateContext: Sendable, Equatable, Decodable {
        /// `PURCHASED`, `CANCELLED` or `PENDING`.
        public var purchaseState: String?
    }
    public struct TestPurchaseContext: Sendable, Equatable, Decodable {
        /// `TEST` for a licence tester's purchase.
        public var fopType: String?
    }

    public var kind: String?
    public var productLineItem: [LineItem]?
    public var purchaseStateContext: PurchaseStateContext?
    /// Present only for a licence tester's purchase.
    public var testPurchaseContext: TestPurchaseContext?
    public var orderId: String?
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    public var regionCode: String?
    /// RFC 3339.
    public var purchaseCompletionTime: String?
    /// `ACKNOWLEDGEMENT_STATE_PENDING` or `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`.
    public var acknowledgementState: String?

    /// The line item for `productId`, or the first when none names it and there is only one.
    public func lineItem(for productId: String?) -> LineItem? {
        let items = productLineItem ?? []
        if let productId, let item = items.first(where: { $0.productId == productId }) { return item }
        return productId == nil || items.count == 1 && items.first?.productId == nil ? items.first : nil
    }
}
