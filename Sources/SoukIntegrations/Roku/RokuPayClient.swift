import AsyncHTTPClient
import Foundation
import SoukCore

/// One transaction as Roku's `validate-transaction` describes it.
public struct RokuTransaction: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String
    public var productCode: String?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    public var expirationDate: Date?
    public var isEntitled: Bool
    public var cancelled: Bool
    public var purchaseStatus: String?
    public var refundDate: Date?
    public var isTest: Bool
    public var quantity: Int
    /// The price before tax (`amount`, in units of `currency`, a JSON number) as milli-units; nil
    /// when Roku's answer does not carry both.
    public var priceMilliunits: Int64?
    public var currency: String?

    init(_ object: [String: Any]) throws(StoreFault) {
        guard let transactionId = object["transactionId"] as? String else {
            throw StoreFault(.unavailable, "Roku answered success without a transactionId")
        }
        func date(_ key: String) -> Date? { (object[key] as? String).flatMap(RokuDate.parse) }
        func bool(_ key: String) -> Bool? { (object[key] as? NSNumber)?.boolValue ?? (object[key] as? String).map { $0.lowercased() == "true" } }
        self.transactionId = transactionId
        // Roku's JSON spells it `OriginalTransactionId`; the XML form's element is `originalTransactionId`.
        originalTransactionId = ((object["OriginalTransactionId"] ?? object["originalTransactionId"]) as? String).flatMap { $0.isEmpty ? nil : $0 }
        productCode = object["productCode"] as? String
        productId = (object["productId"] as? String) ?? productCode ?? ""
        purchaseDate = date("purchaseDate")
        originalPurchaseDate = date("originalPurchaseDate")
        expirationDate = date("expirationDate")
        isEntitled = bool("isEntitled") ?? false
        cancelled = bool("cancelled") ?? false
        purchaseStatus = object["purchaseStatus"] as? String
        refundDate = date("refundDate") ?? date("creditDate")
        isTest = bool("isTest") ?? false
        quantity = (object["quantity"] as? NSNumber)?.intValue ?? 1
        if let amount = object["amount"] as? NSNumber, let code = object["currency"] as? String, code.count == 3,
           let milli = Self.milliunits(amount) {
            priceMilliunits = milli
            currency = code.uppercased()
        }
    }

    /// A JSON number of currency units (`9.99`) as exact milli-units, read from its decimal text so
    /// no binary rounding creeps in; nil for a negative or fractional-milli-unit amount.
    static func milliunits(_ amount: NSNumber) -> Int64? {
        guard let value = Decimal(string: amount.stringValue), value >= 0 else { return nil }
        var scaled = value * 1000, rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        guard rounded == scaled else { return nil }
        return Int64(truncating: rounded as NSDecimalNumber)
    }
}

/// Roku's answer: a transaction, or "Failure" for a transaction it does not know.
public enum RokuAnswer: Sendable, Equatable {
    case transaction(RokuTransaction)
    case unknownTransaction
}

/// Calls Roku Pay's `validate-transaction` (Roku Pay web services reference). Its JSON form answers
/// `"status": 0` for success and a non-zero number for a failure, with an empty `errorMessage` on
/// success; its XML form, and some older JSON answers, spell the status `Success` / `Failure`. Every
/// documented form is read. A "Failure" that blames the partner API key is a verdict on the
/// operator's credentials, so it is thrown as `.credentials`, never turned into a refusal of the purchase.
public struct RokuPayClient: Sendable {
    let http: StoreHTTPClient
    let endpoints: StoreEndpoints

    public init(endpoints: StoreEndpoints, http: HTTPClient = .shared) {
        self.endpoints = endpoints
        self.http = StoreHTTPClient(http: http, retry: endpoints.retry)
    }

    /// Whether Roku's answer is a success: `status` 0 (a number, or the text "0"), `status` "Success",
    /// or no status at all with an empty `errorMessage` and a transaction id.
    static func succeeded(_ object: [String: Any]) -> Bool {
        switch object["status"] {
        case let number as NSNumber:
            return number.intValue == 0
        case let text as String:
            let status = text.trimmingCharacters(in: .whitespaces).lowercased()
            return status == "success" || status == "0"
        default:
            let message = object["errorMessage"] as? String ?? ""
            return message.isEmpty && object["transactionId"] is String
        }
    }

    public func validateTransaction(partnerAPIKey: String, transactionId: String) async throws(StoreFault) -> RokuAnswer {
        let url = endpoints.rokuBaseURL + "/listen/transaction-service.svc/validate-transaction/"
            + AmazonRVSClient.escape(partnerAPIKey) + "/" + AmazonRVSClient.escape(transactionId)
        let response = try await http.send(.GET, url, headers: [("Accept", "application/json")], label: "Roku validate-transaction")
        if response.status == 401 || response.status == 403 {
            throw StoreFault(.credentials, "Roku refused the partner API key (\(response.status))")
        }
        guard response.status == 200 || response.status == 400 || response.status == 404 else {
            throw StoreFault(.unavailable, "Roku answered an unexpected status \(response.status)")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
            if response.status == 404 { return .unknownTransaction }
            throw StoreFault(.unavailable, "Roku answered \(response.status) with a body that is not a JSON object")
        }
        if Self.succeeded(object) {
            return .transaction(try RokuTransaction(object))
        }
        let message = (object["errorMessage"] as? String ?? "").lowercased()
        if message.contains("partner") || message.contains("api key") || message.contains("apikey") || message.contains("unauthorized") {
            throw StoreFault(.credentials, "Roku refused the partner API key")
        }
        return .unknownTransaction
    }
}
