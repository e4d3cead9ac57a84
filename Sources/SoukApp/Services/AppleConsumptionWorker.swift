import Foundation
import Logging
import ServiceLifecycle
import SoukCore
import SoukIntegrations
import SoukStore

/// Answers Apple's refund requests (docs/stores.md, "Refund requests") from the durable queue in
/// `apple_consumption_requests`: each pending request is claimed by one process, answered with
/// Send Consumption Information (`AppleConsumptionAnswer`), and settled with what was sent and
/// Apple's reply. While Apple cannot be reached (or the key is refused) the request stays pending
/// and is retried with the store back-off — never marked answered — until Apple's 12 hours have
/// passed; then it is `expired` and shown as such.
public struct AppleConsumptionWorker: PollingWorker {
    package let requests: AppleConsumptionStore
    package let purchases: PurchaseStore
    package let settings: StoreSettingsProvider
    package let api: AppStoreServerAPIClient
    package let retry: StoreRetryPolicy
    package let storeStatus: StoreStatusStore?
    public let interval: Duration
    package let now: @Sendable () -> Date
    package let logger: Logger

    public init(requests: AppleConsumptionStore, purchases: PurchaseStore, settings: @escaping StoreSettingsProvider, api: AppStoreServerAPIClient,
                retry: StoreRetryPolicy, storeStatus: StoreStatusStore?, interval: Duration = .seconds(1),
                now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.requests = requests
        self.purchases = purchases
        self.settings = settings
        self.api = api
        self.retry = retry
        self.storeStatus = storeStatus
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    @discardableResult
    public func processDue() async -> Int {
        await drain(logger: logger, failure: "refund requests cannot be answered now",
                    claim: { try await requests.claimDue(limit: 20) }, handle: answer)
    }

    /// Answers one claimed request; true when it was settled.
    package func answer(_ request: AppleConsumptionRequestRecord) async -> Bool {
        let metadata: Logger.Metadata = ["app": "\(request.app)", "notification": "\(request.notificationId)"]
        do {
            guard now() < request.deadline else {
                try await requests.settle(request.id, status: .expired, answer: nil, endpoint: nil, reply: request.reply,
                                          detail: "Apple's 12 hours passed before Apple took an answer")
                logger.error("refund request expired unanswered", metadata: metadata)
                return true
            }
            let apple = try await settings(request.app)?.apple
            guard let apple, apple.sendConsumptionInfo else {
                try await requests.settle(request.id, status: .notAnswered, answer: nil, endpoint: nil, reply: nil,
                                          detail: "the app no longer asks consent (stores.apple_store.sendConsumptionInfo is off)")
                return true
            }
            guard let purchase = try await purchases.purchase(app: request.app, store: .appleStore, transactionId: request.transactionId) else {
                try await requests.settle(request.id, status: .notAnswered, answer: nil, endpoint: nil, reply: nil,
                                          detail: "Souk holds no purchase with this transaction id")
                return true
            }
            let share = try await purchases.consumedShare(of: purchase)
            let body = AppleConsumptionAnswer.make(granted: purchase.status == .granted, type: purchase.productType, share: share, settings: apple)
            let json = String(decoding: try Self.encoder.encode(body), as: UTF8.self)
            do {
                guard let credentials = try AppStoreServerAPIClient.Credentials.configured(in: apple, app: request.app) else {
                    throw StoreFault(.notConfigured, "App \(request.app) has no In-App Purchase key (keyId, issuerId, privateKey).")
                }
                let answer = try await api.sendConsumptionInformation(request.transactionId, body, environment: request.environment,
                                                                      credentials: credentials)
                try? await storeStatus?.recordAnswer(app: request.app, store: .appleStore, at: now())
                switch answer {
                case .found(let endpoint):
                    try await requests.settle(request.id, status: .answered, answer: json, endpoint: endpoint.rawValue, reply: "202 Accepted",
                                              detail: nil)
                    logger.info("refund request answered", metadata: metadata)
                case .notFound:
                    try await requests.settle(request.id, status: .refused, answer: json, endpoint: "v2",
                                              reply: "404: Apple knows no such transaction", detail: nil)
                case .invalid(let code, let message):
                    try await requests.settle(request.id, status: .refused, answer: json, endpoint: "v2",
                                              reply: "400 errorCode \(code.map(String.init) ?? "none"): \(message)", detail: nil)
                    logger.error("Apple refused a refund request's answer", metadata: metadata.merging(["error": "\(message)"]) { $1 })
                }
                return true
            } catch let fault as StoreFault {
                try? await storeStatus?.recordFault(app: request.app, store: .appleStore, fault, at: now())
                let next = now().addingTimeInterval(retry.delay(beforeRetry: request.attempts).timeInterval)
                guard next < request.deadline else {
                    try await requests.settle(request.id, status: .expired, answer: json, endpoint: nil, reply: fault.description,
                                              detail: "Apple's 12 hours passed before Apple took an answer")
                    logger.error("refund request given up: Apple's window has passed", metadata: metadata)
                    return true
                }
                try await requests.retry(request.id, reply: fault.description, retryAt: next)
                logger.warning("refund request answer will be retried", metadata: metadata.merging(["error": "\(fault.description)"]) { $1 })
                return false
            }
        } catch {
            // The database is down: the claim's lease runs out and the request is answered again.
            logger.error("refund request cannot be recorded now", metadata: metadata.merging(["error": "\(String(reflecting: error))"]) { $1 })
            return false
        }
    }

    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
