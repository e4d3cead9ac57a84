import Foundation
import Hummingbird
import Synchronization

/// An in-memory Roku `validate-transaction`: transactions by id, the partner API key checked in the path,
/// answers in Roku's shape (`status` Success/Failure with `errorMessage`, WCF `/Date(…)/` dates).
public final class FakeRoku: Sendable {
    public let partnerAPIKey: String
    let transactions = Mutex<[String: [String: any Sendable]]>([:])

    public init(partnerAPIKey: String) { self.partnerAPIKey = partnerAPIKey }

    /// Roku's date spelling for `date`, with the given display offset (the number stays UTC ms).
    public static func wcfDate(_ date: Date, offset: String = "+0000") -> String {
        "/Date(\(Int64((date.timeIntervalSince1970 * 1000).rounded()))\(offset))/"
    }

    public func add(transactionId: String, fields: [String: any Sendable]) {
        var json = fields
        json["transactionId"] = transactionId
        transactions.withLock { $0[transactionId] = json }
    }

    public func routes(_ router: Router<BasicRequestContext>) {
        router.get("/listen/transaction-service.svc/validate-transaction/:key/:transaction") { _, context in
            let key = context.parameters.get("key").flatMap { $0.removingPercentEncoding } ?? ""
            let id = context.parameters.get("transaction").flatMap { $0.removingPercentEncoding } ?? ""
            guard key == self.partnerAPIKey else {
                return FakeStoreServer.json(object: ["status": "Failure", "errorCode": NSNull(), "errorMessage": "Invalid partner API key."])
            }
            guard var json = self.transactions.withLock({ $0[id] }) else {
                return FakeStoreServer.json(object: ["status": "Failure", "errorMessage": "Invalid transaction id."])
            }
            json["status"] = "Success"
            json["errorMessage"] = NSNull()
            return FakeStoreServer.json(object: json)
        }
    }
}
