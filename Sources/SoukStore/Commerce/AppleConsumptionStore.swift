import Foundation
import SQLKit
import SoukCore

/// Where Apple's refund request (CONSUMPTION_REQUEST) stands.
public enum AppleConsumptionStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for (or being retried by) the worker.
    case pending
    /// Apple took Souk's answer (202).
    case answered
    /// Recorded and deliberately not answered: the app does not ask consent, Souk holds no such
    /// purchase, or the customer rescinded consent (`detail` says which).
    case notAnswered = "not_answered"
    /// Apple refused the answer (400); `reply` holds its error.
    case refused
    /// Apple's 12 hours passed without an answer Apple took (it could not be reached).
    case expired
}

/// A refund request as recorded.
public struct AppleConsumptionRequestRecord: Sendable, Equatable {
    public var id: UUID
    public var app: String
    public var notificationId: String
    public var environment: CommerceEnvironment
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String?
    /// `consumptionRequestReason` (UNINTENDED_PURCHASE, FULFILLMENT_ISSUE, …).
    public var reason: String?
    public var requestedAt: Date
    /// Apple's deadline: 12 hours after the request.
    public var deadline: Date
    public var status: AppleConsumptionStatus
    public var attempts: Int
    public var nextAttemptAt: Date?
    /// The ConsumptionRequest sent, as JSON.
    public var answer: String?
    /// `v2` or `v1`.
    public var endpoint: String?
    /// What Apple answered (`202 Accepted`, `400 errorCode 4000035: …`).
    public var reply: String?
    public var detail: String?
    public var answeredAt: Date?

    public init(id: UUID = UUID(), app: String, notificationId: String, environment: CommerceEnvironment, transactionId: String,
                originalTransactionId: String?, productId: String?, reason: String?, requestedAt: Date, deadline: Date,
                status: AppleConsumptionStatus = .pending, attempts: Int = 0, nextAttemptAt: Date? = nil, answer: String? = nil,
                endpoint: String? = nil, reply: String? = nil, detail: String? = nil, answeredAt: Date? = nil) {
        self.id = id
        self.app = app
        self.notificationId = notificationId
        self.environment = environment
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.reason = reason
        self.requestedAt = requestedAt
        self.deadline = deadline
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.answer = answer
        self.endpoint = endpoint
        self.reply = reply
        self.detail = detail
        self.answeredAt = answeredAt
    }

    /// For people: the status with what was sent and Apple's reply.
    public var summary: String {
        var parts = [status.rawValue]
        if let detail { parts.append(detail) }
        if let answer { parts.append("sent \(endpoint ?? "v2") \(answer)") }
        if let reply { parts.append("Apple: \(reply)") }
        return parts.joined(separator: "; ")
    }
}

/// The durable queue of answers to Apple's refund requests (docs/stores.md, "Refund requests").
/// The notification worker `record`s a request; the consumption worker `claimDue`s it with a
/// lease (a conditional update, so one process answers), then settles it. Nothing is lost on a
/// restart: the row says what is due.
public struct AppleConsumptionStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    /// How long a claimed request is left to its worker.
    public static let lease: TimeInterval = 120
    /// Apple's window for an answer.
    public static let window: TimeInterval = 12 * 3600

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// Records a request once (a redelivered notification changes nothing): pending and due now,
    /// or settled at once (`status` not pending, with `detail`). False when it was already recorded.
    @discardableResult
    public func record(_ request: AppleConsumptionRequestRecord) async throws -> Bool {
        let due: Date? = request.status == .pending ? now() : nil
        let row = try await database.sql.raw("""
            INSERT INTO apple_consumption_requests (id, app, notification_id, environment, transaction_id, original_transaction_id,
            product_id, reason, requested_at, deadline, status, attempts, next_attempt_at, detail)
            VALUES (\(bind: request.id), \(bind: request.app), \(bind: request.notificationId), \(bind: request.environment.rawValue),
            \(bind: request.transactionId), \(bind: request.originalTransactionId), \(bind: request.productId), \(bind: request.reason),
            \(bind: request.requestedAt), \(bind: request.deadline), \(bind: request.status.rawValue), 0, \(bind: due), \(bind: request.detail))
            ON CONFLICT (app, notification_id) DO NOTHING
            RETURNING id
            """).first()
        return row != nil
    }

    /// Leases up to `limit` due pending requests, earliest deadline first.
    public func claimDue(limit: Int) async throws -> [AppleConsumptionRequestRecord] {
        let at = now()
        let pending = AppleConsumptionStatus.pending.rawValue
        let rows = try await database.sql.raw("""
            SELECT id, attempts FROM apple_consumption_requests
            WHERE status = \(bind: pending) AND next_attempt_at <= \(bind: at)
            ORDER BY deadline LIMIT \(bind: limit)
            """).all()
        var claimed: [AppleConsumptionRequestRecord] = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self)
            let attempts = try row.decode(column: "attempts", as: Int.self)
            guard try await database.sql.raw("""
                UPDATE apple_consumption_requests SET attempts = \(bind: attempts + 1), next_attempt_at = \(bind: at.addingTimeInterval(Self.lease))
                WHERE id = \(bind: id) AND attempts = \(bind: attempts) AND status = \(bind: pending)
                RETURNING id
                """).first() != nil else { continue }
            if let request = try await request(id: id) { claimed.append(request) }
        }
        return claimed
    }

    /// Settles a claimed request: answered, refused by Apple, not answered or expired; with what
    /// was sent and Apple's reply.
    public func settle(_ id: UUID, status: AppleConsumptionStatus, answer: String?, endpoint: String?, reply: String?,
                       detail: String?) async throws {
        try await database.sql.raw("""
            UPDATE apple_consumption_requests SET status = \(bind: status.rawValue), next_attempt_at = NULL, answer = \(bind: answer),
            endpoint = \(bind: endpoint), reply = \(bind: reply), detail = \(bind: detail),
            answered_at = \(bind: (status == .answered ? now() : nil) as Date?)
            WHERE id = \(bind: id) AND status = \(bind: AppleConsumptionStatus.pending.rawValue)
            """).run()
    }

    /// The attempt got no verdict (Apple down, a key problem): tried again at `retryAt`, still pending.
    public func retry(_ id: UUID, reply: String, retryAt: Date) async throws {
        try await database.sql.raw("""
            UPDATE apple_consumption_requests SET next_attempt_at = \(bind: retryAt), reply = \(bind: reply)
            WHERE id = \(bind: id) AND status = \(bind: AppleConsumptionStatus.pending.rawValue)
            """).run()
    }

    /// The customer rescinded consent: the app's pending requests (of `originalTransactionId`, or
    /// all when nil) are no longer answered. Returns how many.
    @discardableResult
    public func rescind(app: String, originalTransactionId: String?) async throws -> Int {
        var query = database.sql.update("apple_consumption_requests")
            .set("status", to: AppleConsumptionStatus.notAnswered.rawValue).set("next_attempt_at", to: SQLLiteral.null)
            .set("detail", to: "the customer rescinded consent")
            .where("app", .equal, app).where("status", .equal, AppleConsumptionStatus.pending.rawValue)
        if let originalTransactionId { query = query.where("original_transaction_id", .equal, originalTransactionId) }
        return try await query.returning("id").all().count
    }

    public func request(id: UUID) async throws -> AppleConsumptionRequestRecord? {
        try await database.sql.raw("SELECT \(unsafeRaw: Self.columns) FROM apple_consumption_requests WHERE id = \(bind: id)").first()
            .map(Self.decode)
    }

    /// An app's requests, newest first.
    public func requests(app: String, limit: Int = 100) async throws -> [AppleConsumptionRequestRecord] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM apple_consumption_requests WHERE app = \(bind: app)
            ORDER BY requested_at DESC LIMIT \(bind: limit)
            """).all().map(Self.decode)
    }

    static let columns = """
        id, app, notification_id, environment, transaction_id, original_transaction_id, product_id, reason, requested_at, deadline,
        status, attempts, next_attempt_at, answer, endpoint, reply, detail, answered_at
        """

    static func decode(_ row: any SQLRow) throws -> AppleConsumptionRequestRecord {
        AppleConsumptionRequestRecord(
            id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
            notificationId: try row.decode(column: "notification_id", as: String.self),
            environment: CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) ?? .production,
            transactionId: try row.decode(column: "transaction_id", as: String.self),
            originalTransactionId: try row.decode(column: "original_transaction_id", as: String?.self),
            productId: try row.decode(column: "product_id", as: String?.self), reason: try row.decode(column: "reason", as: String?.self),
            requestedAt: try row.decode(column: "requested_at", as: Date.self), deadline: try row.decode(column: "deadline", as: Date.self),
            status: AppleConsumptionStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .pending,
            attempts: try row.decode(column: "attempts", as: Int.self), nextAttemptAt: try row.decode(column: "next_attempt_at", as: Date?.self),
            answer: try row.decode(column: "answer", as: String?.self), endpoint: try row.decode(column: "endpoint", as: String?.self),
            reply: try row.decode(column: "reply", as: String?.self), detail: try row.decode(column: "detail", as: String?.self),
            answeredAt: try row.decode(column: "answered_at", as: Date?.self))
    }
}
