import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import SoukCore
import SoukIntegrations
import SoukStore

/// Delivers lifecycle events to the developers' webhooks. Every `interval` it
/// queues new events for their app's endpoints, then claims due deliveries one by one (a lease, so
/// several processes never post the same attempt), POSTs the signed body and records the outcome:
/// 2xx is delivered; any other status, a timeout or a refused connection is retried after
/// min(max, base·2^(n-1)) with jitter until the delivery's window (3 days after the event) has
/// passed, and then it is `failed`. A receiver gets at most `requestTimeout` (10 s) per attempt;
/// redirects are not followed (see `client`).
public struct WebhookDeliveryWorker: PollingWorker {
    package let store: WebhookStore
    package let retryBase: Duration
    package let retryMax: Duration
    package let requestTimeout: Duration
    public let interval: Duration
    package let http: HTTPClient
    package let now: @Sendable () -> Date
    package let logger: Logger

    public static let userAgent = "Souk-Webhooks/1"

    /// The process's client for webhooks (like `HTTPClient.shared`, never shut down), which does not
    /// follow redirects: a 3xx is a failed attempt, so a signed body only goes to the configured URL
    /// (and a POST is never turned into a GET by a 302).
    public static let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                          configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    public init(store: WebhookStore, retryBase: Duration, retryMax: Duration, requestTimeout: Duration = .seconds(10),
                interval: Duration = .seconds(1), http: HTTPClient = WebhookDeliveryWorker.client, now: @escaping @Sendable () -> Date = { Date() },
                logger: Logger) {
        self.store = store
        self.retryBase = retryBase
        self.retryMax = retryMax
        self.requestTimeout = requestTimeout
        self.interval = interval
        self.http = http
        self.now = now
        self.logger = logger
    }

    /// Queues new events and attempts every delivery due now; returns how many were delivered.
    @discardableResult
    public func processDue() async -> Int {
        var delivered = 0
        do {
            try await store.enqueue()
            while !Task.isCancelled, let delivery = try await store.claimDue() {
                if try await attempt(delivery) { delivered += 1 }
            }
        } catch {
            // The database is down or a bug: claimed deliveries' leases run out and they are tried again.
            logger.error("webhook deliveries cannot be processed now", metadata: ["error": "\(String(reflecting: error))"])
        }
        return delivered
    }

    /// Posts one claimed delivery and records the outcome; true when delivered.
    package func attempt(_ delivery: ClaimedWebhookDelivery) async throws -> Bool {
        let body = Self.body(delivery.event, email: delivery.email, accountToken: delivery.accountToken)
        var request = HTTPClientRequest(url: delivery.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Souk-Event-Id", value: delivery.event.id.uuidString.lowercased())
        request.headers.add(name: SoukWebhookSignature.header, value: SoukWebhookSignature.sign(body: body, secret: delivery.secret, timestamp: now()))
        request.body = .bytes(ByteBuffer(bytes: body))
        let metadata: Logger.Metadata = ["event": "\(delivery.event.id.uuidString.lowercased())", "endpoint": "\(delivery.endpointId)",
                                         "attempt": "\(delivery.attempt)"]
        var status: Int?
        var problem: String
        do {
            let response = try await http.execute(request, timeout: .nanoseconds(Int64(requestTimeout.timeInterval * 1e9)))
            _ = try? await response.body.collect(upTo: 64 << 10)
            status = Int(response.status.code)
            if (200..<300).contains(Int(response.status.code)) {
                try await store.recordSuccess(delivery, status: Int(response.status.code))
                logger.info("webhook delivered", metadata: metadata)
                return true
            }
            problem = "the receiver answered \(response.status.code)"
        } catch {
            problem = Self.describe(error)
        }
        let retryAt = now().addingTimeInterval(Self.delay(afterAttempts: delivery.attempt, base: retryBase, max: retryMax).timeInterval)
        let outcome = try await store.recordFailure(delivery, status: status, error: problem, retryAt: retryAt)
        var failed = metadata
        failed["problem"] = "\(problem)"
        if outcome == .failed {
            logger.warning("webhook delivery failed for good (its retry window has passed)", metadata: failed)
        } else {
            logger.info("webhook delivery will be retried", metadata: failed)
        }
        return false
    }

    /// The wait after attempt `attempts` (1-based): min(max, base·2^(attempts-1)), of which a random
    /// 50–100 % is taken so that receivers coming back are not hit by every retry at once.
    public static func delay(afterAttempts attempts: Int, base: Duration, max: Duration,
                             jitter: Double = Double.random(in: 0...1)) -> Duration {
        let ceiling = min(max.timeInterval, base.timeInterval * pow(2, Double(Swift.max(0, attempts - 1))))
        return .milliseconds(Int64(ceiling * (0.5 + jitter / 2) * 1000))
    }

    /// The JSON body of `event`: `{"id", "type", "environment", "app", "account": {"id", "email"},
    /// "occurredAt", "data"}`, keys sorted, dates RFC 3339; `data` holds only the fields that apply.
    /// With `accountToken` (a developer organisation's catalog) the account is `{"token"}` alone.
    public static func body(_ event: CommerceEvent, email: String, accountToken: UUID? = nil) -> [UInt8] {
        var data: [String: Any] = [:]
        if let value = event.productId { data["productId"] = value }
        if let value = event.entitlementId { data["entitlementId"] = value }
        if let value = event.store { data["store"] = value }
        if let value = event.transactionId { data["transactionId"] = value }
        if let value = event.originalTransactionId { data["originalTransactionId"] = value }
        if let value = event.paymentId { data["paymentId"] = value.uuidString.lowercased() }
        if let value = event.expiresAt { data["expiresAt"] = RFC3339.format(value) }
        let object: [String: Any] = [
            "id": event.id.uuidString.lowercased(), "type": event.type.rawValue, "environment": event.environment.rawValue,
            "app": event.app,
            "account": accountToken.map { ["token": $0.uuidString.lowercased()] }
                ?? ["id": event.accountId.uuidString.lowercased(), "email": email],
            "occurredAt": RFC3339.format(event.occurredAt), "data": data,
        ]
        let encoded = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(encoded)
    }

    /// An error said without the URL (it may carry a token the developer put in it).
    package static func describe(_ error: any Error) -> String { StoreHTTPClient.describe(error) }
}
