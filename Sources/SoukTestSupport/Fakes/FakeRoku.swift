import Foundation
import Hummingbird
import Synchronization

/// An in-memory Roku `validate-transaction`: transactions by id, the partner API key checked in the path,
/// answers in the shape of Roku's JSON form (Roku Pay web services reference, and answers seen from
/// apipub.roku.com): `"status": 0` with `"errorMessage": ""` and `errorCode`/`errorDetails` null on
/// success, `"status": 1` with an `errorMessage` on failure; `OriginalTransactionId` capitalised as
/// Roku's JSON spells it; WCF `/Date(…)/` dates.
public final class FakeRoku: Sendable {
    public let partnerAPIKey: String
    let transactions = Mutex<[String: [String: any Sendable]]>([:])

    public init(partnerAPIKey: String) { self.partnerAPIKey = partnerAPIKey }

    /// Roku's date spelling for `date`, with the given display offset (the number stays UTC ms).
    public static func wcfDate(_ date: Date, offset: String = "+0000") -> String {
        "/Date(\(Int64((date.timeIntervalSince1970 * 1000).rounded()))\(offset))/"
    }

    /// `fields` in Roku's names; `originalTransactionId` is accepted and answered as Roku spells it.
    public func add(transactionId: String, fields: [String: any Sendable]) {
        var json = fields
        if let original = json.removeValue(forKey: "originalTransactionId") { json["OriginalTransactionId"] = original }
        json["transactionId"] = transactionId
        transactions.withLock { $0[transactionId] = json }
    }

    public func routes(_ router: Router<BasicRequestContext>) {
        router.get("/listen/transaction-service.svc/validate-transaction/:key/:transaction") { _, context in
            let key = context.parameters.get("key").flatMap { $0.removingPercentEncoding } ?? ""
            let id = context.parameters.get("transaction").flatMap { $0.removingPercentEncoding } ?? ""
            guard key == self.partnerAPIKey else {
                return FakeStoreServer.json(object: ["status": 1, "errorCode": NSNull(), "errorDetails": NSNull(),
                                                     "errorMessage": "Invalid partner API key."])
            }
            guard var json = self.transactions.withLock({ $0[id] }) else {
                return FakeStoreServer.json(object: ["status": 1, "errorCode": NSNull(), "errorDetails": NSNull(),
                                                     "errorMessage": "Invalid transaction id."])
            }
            json["status"] = 0
            json["errorCode"] = NSNull()
            json["errorDetails"] = NSNull()
            json["errorMessage"] = ""
            return FakeStoreServer.json(object: json)
        }
    }
}
