import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SoukCore
import SoukIntegrations
import SoukStore

extension StorePushController {
    /// `POST /commerce/<app>/roku/notifications`: a Roku Pay push notification. Roku sends it without
    /// authentication and wants the partner API key back, so the key is only ever given for a
    /// transaction Roku itself confirms for this app.
    func roku(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await knownApp(context)
        let body = String(buffer: try await request.collectBody(upTo: Self.maxBody))
        let push: RokuPushNotification
        do {
            push = try RokuPushNotification.parse(body)
        } catch {
            throw Problem(.badRequest, error.description)
        }
        guard let roku else {
            throw Problem(.serviceUnavailable, "Roku notifications cannot be checked on this server.", retryAfter: 60)
        }
        guard let reference = try await settings(app)?.roku?.partnerApiKey, let key = try? reference.resolve(), !key.isEmpty else {
            context.logger.error("Roku notification refused: stores.roku.partnerApiKey is not configured or cannot be read", metadata: ["app": "\(app)"])
            throw Problem(.badRequest, "Roku Pay is not configured for app \(app).")
        }
        let metadata: Logger.Metadata = ["app": "\(app)", "transaction": "\(push.transactionId)", "type": "\(push.transactionType)"]
        let verdict: StoreVerdict
        do {
            let claim = try await roku.claim(app: app, transactionId: push.transactionId)
                ?? PurchaseClaim(store: .roku, app: app, storeProductId: "", transactionId: push.transactionId, receipt: "")
            verdict = try await Self.within(rokuDeadline) { try await roku.verifier.verify(claim) }
        } catch {
            // No verdict (an outage, a refused partner API key, the deadline): Roku sends the push again.
            let reason = error is DeadlinePassed ? "validate-transaction gave no answer in time" : "validate-transaction failed"
            context.logger.warning("Roku notification not acknowledged: \(reason)", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            throw Problem(.serviceUnavailable, "Roku could not confirm the transaction now; Roku sends the notification again.", retryAfter: 60)
        }
        guard case .verified(let purchase) = verdict, purchase.transactionId == push.transactionId,
              try await roku.belongs(purchase, app: app) else {
            context.logger.warning("Roku notification refused: Roku does not confirm the transaction for this app", metadata: metadata)
            throw Problem(.badRequest, "Roku does not confirm transaction \(push.transactionId) for app \(app).")
        }
        let received = ReceivedStoreNotification(app: app, store: CommerceStore.roku.rawValue, notificationId: push.responseKey,
                                                 type: push.transactionType, signedDate: push.eventDate ?? now(), payload: body)
        if let row = try await pending(received) {
            try await settle(row, logger: context.logger) { try await roku.apply(purchase, app: app, label: push.transactionType) }
        }
        return Response(status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store", HTTPField.Name("ApiKey")!: key],
                        body: .init(byteBuffer: ByteBuffer(string: push.responseKey)))
    }

    struct DeadlinePassed: Error, CustomStringConvertible {
        var description: String { "the deadline passed" }
    }

    /// `work`'s result, or `DeadlinePassed` once `limit` is over (the work is cancelled).
    static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw DeadlinePassed() }
            return value
        }
    }
}
