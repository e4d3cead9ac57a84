import AsyncHTTPClient
import Foundation
import SoukCore

/// One receipt as Amazon RVS describes it; only the fields Souk's lifecycle needs are kept.
public struct AmazonReceipt: Sendable, Equatable {
    public var receiptId: String
    public var productId: String
    public var productType: String
    public var termSku: String?
    public var purchaseDate: Date?
    public var cancelDate: Date?
    public var cancelReason: Int?
    public var renewalDate: Date?
    public var gracePeriodEndDate: Date?
    public var freeTrialEndDate: Date?
    public var autoRenewing: Bool?
    public var testTransaction: Bool
    public var quantity: Int

    init(_ object: [String: Any]) throws(StoreFault) {
        guard let receiptId = object["receiptId"] as? String, let productId = object["productId"] as? String else {
            throw StoreFault(.unavailable, "Amazon RVS answered a receipt without receiptId or productId")
        }
        func date(_ key: String) -> Date? {
            (object[key] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue / 1000) }
        }
        self.receiptId = receiptId
        self.productId = productId
        productType = object["productType"] as? String ?? ""
        termSku = object["termSku"] as? String
        purchaseDate = date("purchaseDate")
        cancelDate = date("cancelDate")
        cancelReason = (object["cancelReason"] as? NSNumber)?.intValue ?? (object["cancelReason"] as? String).flatMap { Int($0) }
        renewalDate = date("renewalDate")
        gracePeriodEndDate = date("gracePeriodEndDate")
        freeTrialEndDate = date("freeTrialEndDate")
        autoRenewing = (object["autoRenewing"] as? NSNumber)?.boolValue
        testTransaction = (object["testTransaction"] as? NSNumber)?.boolValue ?? false
        quantity = (object["quantity"] as? NSNumber)?.intValue ?? 1
    }
}

/// RVS's answer: a receipt, or one of its documented 4xx verdicts on the request.
public enum AmazonRVSAnswer: Sendable, Equatable {
    case receipt(AmazonReceipt)
    /// 400: the receipt id is not a valid transaction.
    case invalidTransaction
    /// 497: the user id is not valid.
    case invalidUser
    /// 498: the receipt is not valid for this user/app.
    case invalidReceipt
}

/// Calls RVS `verifyReceiptId`. 496/499 are verdicts on the operator's shared secret, not on the
/// purchase, so they are thrown as `.credentials` faults (retried, visible to the operator) rather than refusals.
public struct AmazonRVSClient: Sendable {
    let http: StoreHTTPClient
    let endpoints: StoreEndpoints

    public init(endpoints: StoreEndpoints, http: HTTPClient = .shared) {
        self.endpoints = endpoints
        self.http = StoreHTTPClient(http: http, retry: endpoints.retry)
    }

    /// The sandbox path is Souk's own addition on the sandbox base URL (Amazon documents `/sandbox/version/1.0/…`).
    public func verifyReceipt(sharedSecret: String, userId: String, receiptId: String, sandbox: Bool) async throws(StoreFault) -> AmazonRVSAnswer {
        let base = sandbox ? endpoints.amazonRVSSandboxBaseURL + "/sandbox" : endpoints.amazonRVSBaseURL
        let url = base + "/version/1.0/verifyReceiptId/developer/\(Self.escape(sharedSecret))/user/\(Self.escape(userId))/receiptId/\(Self.escape(receiptId))"
        let response = try await http.send(.GET, url, headers: [("Accept", "application/json")], label: "Amazon RVS")
        switch response.status {
        case 200:
            guard let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
                throw StoreFault(.unavailable, "Amazon RVS answered 200 with a body that is not a JSON object")
            }
            return .receipt(try AmazonReceipt(object))
        case 400: return .invalidTransaction
        case 496: throw StoreFault(.credentials, "Amazon refused the shared secret (496)")
        case 497: return .invalidUser
        case 498: return .invalidReceipt
        case 499: throw StoreFault(.credentials, "Amazon says the shared secret's credentials have expired (499)")
        default: throw StoreFault(.unavailable, "Amazon RVS answered an unexpected status \(response.status)")
        }
    }

    static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
