import Foundation
import Hummingbird
import Synchronization

/// An in-memory Amazon RVS: receipts keyed by receipt id and owned by a user, the shared secret checked in
/// the path, and the documented status codes (400/496/497/498/499) as bare statuses.
public final class FakeAmazonRVS: Sendable {
    public let sharedSecret: String
    let receipts = Mutex<[String: (userId: String, json: [String: any Sendable])]>([:])
    let expiredSecrets = Mutex<Set<String>>([])

    public init(sharedSecret: String) { self.sharedSecret = sharedSecret }

    public func add(receiptId: String, userId: String, fields: [String: any Sendable]) {
        var json = fields
        json["receiptId"] = receiptId
        receipts.withLock { $0[receiptId] = (userId, json) }
    }

    /// Makes a secret answer 499 (expired credentials).
    public func expire(secret: String) { expiredSecrets.withLock { _ = $0.insert(secret) } }

    public func routes(_ router: Router<BasicRequestContext>) {
        for prefix in ["/version/1.0", "/sandbox/version/1.0"] {
            router.get("\(prefix)/verifyReceiptId/developer/:secret/user/:user/receiptId/:receipt") { _, context in
                self.answer(secret: context.parameters.get("secret") ?? "", user: context.parameters.get("user") ?? "",
                            receipt: context.parameters.get("receipt") ?? "")
            }
        }
    }

    func answer(secret: String, user: String, receipt: String) -> Response {
        let secret = secret.removingPercentEncoding ?? secret
        let user = user.removingPercentEncoding ?? user
        let receipt = receipt.removingPercentEncoding ?? receipt
        if expiredSecrets.withLock({ $0.contains(secret) }) { return Response(status: .init(code: 499)) }
        guard secret == sharedSecret else { return Response(status: .init(code: 496)) }
        guard let stored = receipts.withLock({ $0[receipt] }) else { return Response(status: .init(code: 400)) }
        guard !user.isEmpty, receipts.withLock({ $0.values.contains { $0.userId == user } }) else { return Response(status: .init(code: 497)) }
        guard stored.userId == user else { return Response(status: .init(code: 498)) }
        return FakeStoreServer.json(object: stored.json)
    }
}
