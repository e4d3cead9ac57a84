import FluentKit
import Foundation
import SQLKit
import SoukCore

/// A URL of an app's developer that receives its lifecycle events. The secret is never part of it:
/// it is read only by the delivery worker, to sign (`ClaimedWebhookDelivery`).
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: UUID
    public var app: String
    public var url: String
    public var createdAt: Date
}

public enum WebhookDeliveryStatus: String, Sendable, Codable, CaseIterable {
    case pending, delivered, failed
}

/// One event's delivery to one endpoint, as the operator sees it.
public struct WebhookDelivery: Sendable, Equatable {
    public var eventId: UUID
    public var endpointId: UUID
    public var url: String
    public var eventType: String
    public var environment: String
    public var status: WebhookDeliveryStatus
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastStatus: Int?
    public var lastError: String?
    public var deliveredAt: Date?
    public var createdAt: Date
}

/// A delivery a worker holds (a lease of `WebhookStore.lease`): what it needs to build, sign and
/// post the body, and what `recordSuccess`/`recordFailure` need to settle it.
public struct ClaimedWebhookDelivery: Sendable {
    public var event: CommerceEvent
    public var email: String
    /// Set when the event's catalog belongs to a developer organisation: its endpoints learn the
    /// buyer only by their account token in that app, never by Souk account id or email
    /// (docs/developers.md, "Webhooks").
    public var accountToken: UUID?
    public var endpointId: UUID
    public var url: String
    public var secret: String
    /// This attempt's number (1 for the first).
    public var attempt: Int
    /// When retries stop (`window_start + retryWindow`).
    public var deadline: Date
}

public struct WebhookStoreError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Webhook endpoints and their deliveries. `commerce_events` is the outbox:
/// `enqueue` gives every event created after an endpoint was added one delivery row for it
/// (`UNIQUE(event_id, endpoint_id)`, so concurrent processes queue it once), `claimDue` leases a
/// due delivery with a conditional update (so two workers never post the same attempt), and the
/// outcome settles it: delivered, retried later, or `failed` once its window has passed.
public struct WebhookStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    /// How long a delivery is retried after its event was recorded (or redelivered): 3 days.
    public let retryWindow: TimeInterval
    /// How long a claimed delivery is left to its worker (longer than a request's 10 s timeout).
    public static let lease: TimeInterval = 60

    public init(database: SoukDatabase, retryWindow: TimeInterval = 3 * 86_400, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.retryWindow = retryWindow
        self.now = now
    }

    /// Adds an endpoint of `app`. The URL must be absolute http(s) with a host; the secret at
    /// least 16 characters (it is an HMAC key).
    public func add(app: String, url: String, secret: String) async throws -> WebhookEndpoint {
        try Self.validate(url: url)
        guard secret.count >= 16 else { throw WebhookStoreError("A webhook secret must be at least 16 characters long.") }
        guard !app.isEmpty else { throw WebhookStoreError("A webhook needs an app (bundle id / package name).") }
        if try await database.sql.raw("SELECT id FROM webhook_endpoints WHERE app = \(bind: app) AND url = \(bind: url)").first() != nil {
            throw WebhookStoreError("App \(app) already has a webhook to \(url).")
        }
        let endpoint = WebhookEndpoint(id: UUID(), app: app, url: url, createdAt: now())
        try await database.sql.raw("""
            INSERT INTO webhook_endpoints (id, app, url, secret, created_at)
            VALUES (\(bind: endpoint.id), \(bind: app), \(bind: url), \(bind: secret), \(bind: endpoint.createdAt))
            """).run()
        return endpoint
    }

    /// Throws unless `url` is an absolute http or https URL with a host.
    public static func validate(url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw WebhookStoreError("A webhook URL must be an absolute http:// or https:// URL with a host.")
        }
    }

    /// True when `url` sends events unencrypted to another machine (plain http, not loopback).
    public static func isInsecure(url: String) -> Bool {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http" else { return false }
        let host = components.host?.lowercased() ?? ""
        return !(host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127."))
    }

    /// The endpoints of `app` (every app's when nil), oldest first.
    public func endpoints(app: String? = nil) async throws -> [WebhookEndpoint] {
        var query = SQLQueryString("SELECT id, app, url, created_at FROM webhook_endpoints")
        if let app { query = query + " WHERE app = \(bind: app)" }
        return try await database.sql.raw(query + " ORDER BY app, created_at").all().map { row in
            WebhookEndpoint(id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
                            url: try row.decode(column: "url", as: String.self),
                            createdAt: try row.decode(column: "created_at", as: Date.self))
        }
    }

    /// Removes an endpoint of `app` and its deliveries; false when there is none.
    @discardableResult
    public func remove(app: String, id: UUID) async throws -> Bool {
        guard try await database.sql.raw("SELECT id FROM webhook_endpoints WHERE id = \(bind: id) AND app = \(bind: app)").first() != nil else {
            return false
        }
        try await database.sql.raw("DELETE FROM webhook_deliveries WHERE endpoint_id = \(bind: id)").run()
        try await database.sql.raw("DELETE FROM webhook_endpoints WHERE id = \(bind: id)").run()
        return true
    }

    /// Queues every event of an app with endpoints that has no delivery for an endpoint yet (only
    /// events recorded once the endpoint existed, and within the retry window: an older one could
    /// only fail). Safe to run in several processes at once; returns how many were queued (an
    /// estimate when another process queues at the same moment).
    ///
    /// It runs every second in every process, so it must not cost more as events pile up: with no
    /// endpoint it reads one row; otherwise it walks the endpoints (few) and, for each, the app's
    /// recent events through the `(app, created_at)` index (`CROSS JOIN` keeps SQLite's planner
    /// from scanning every event of the window instead — at 1,000,000 events that was ~150 ms a
    /// second, felt by every request sharing the connection).
    @discardableResult
    public func enqueue() async throws -> Int {
        guard try await database.sql.raw("SELECT 1 AS found FROM webhook_endpoints LIMIT 1").first() != nil else { return 0 }
        let at = now()
        return try await database.sql.raw("""
            INSERT INTO webhook_deliveries (event_id, endpoint_id, app, status, attempts, next_attempt_at, window_start, created_at)
            SELECT e.id, w.id, e.app, \(bind: WebhookDeliveryStatus.pending.rawValue), 0, e.created_at, e.created_at, \(bind: at)
            FROM webhook_endpoints w CROSS JOIN commerce_events e
            WHERE e.app = w.app AND e.created_at >= w.created_at AND e.created_at >= \(bind: at.addingTimeInterval(-retryWindow))
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = w.id)
            ON CONFLICT DO NOTHING
            RETURNING event_id
            """).all().count
    }

    /// Leases the pending delivery due soonest (for `lease` seconds), or nil. Two workers never
    /// claim the same attempt: the claim is a conditional update of `attempts`.
    public func claimDue() async throws -> ClaimedWebhookDelivery? {
        let at = now()
        for _ in 0..<5 {
            guard let candidate = try await database.sql.raw("""
                SELECT event_id, endpoint_id, attempts FROM webhook_deliveries
                WHERE status = \(bind: WebhookDeliveryStatus.pending.rawValue) AND next_attempt_at <= \(bind: at)
                ORDER BY next_attempt_at LIMIT 1
                """).first() else { return nil }
            let eventId = try candidate.decode(column: "event_id", as: UUID.self)
            let endpointId = try candidate.decode(column: "endpoint_id", as: UUID.self)
            let attempts = try candidate.decode(column: "attempts", as: Int.self)
            guard try await database.sql.raw("""
                UPDATE webhook_deliveries SET attempts = \(bind: attempts + 1), next_attempt_at = \(bind: at.addingTimeInterval(Self.lease))
                WHERE event_id = \(bind: eventId) AND endpoint_id = \(bind: endpointId) AND attempts = \(bind: attempts)
                AND status = \(bind: WebhookDeliveryStatus.pending.rawValue)
                RETURNING window_start
                """).first() != nil else { continue }
            guard let row = try await database.sql.raw("""
                SELECT \(unsafeRaw: CommerceEventStore.columns("e")), a.email, w.url, w.secret, d.window_start, c.developer_id
                FROM webhook_deliveries d JOIN commerce_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
                JOIN accounts a ON a.id = e.account_id LEFT JOIN commerce_apps c ON c.app = e.app
                WHERE d.event_id = \(bind: eventId) AND d.endpoint_id = \(bind: endpointId)
                """).first() else { continue }
            guard let event = try CommerceEventStore.decode(row) else {
                throw WebhookStoreError("Event \(eventId) has a type, source or environment this version of Souk does not know.")
            }
            let developerOwned = try row.decode(column: "developer_id", as: String?.self) != nil
            let accountToken = developerOwned
                ? try await AccountTokenStore(database: database, now: { at }).token(account: event.accountId, app: event.app) : nil
            return ClaimedWebhookDelivery(
                event: event, email: try row.decode(column: "email", as: String.self), accountToken: accountToken, endpointId: endpointId,
                url: try row.decode(column: "url", as: String.self), secret: try row.decode(column: "secret", as: String.self),
                attempt: attempts + 1,
                deadline: try row.decode(column: "window_start", as: Date.self).addingTimeInterval(retryWindow))
        }
        return nil
    }

    /// The receiver answered 2xx.
    public func recordSuccess(_ delivery: ClaimedWebhookDelivery, status: Int) async throws {
        try await database.sql.raw("""
            UPDATE webhook_deliveries SET status = \(bind: WebhookDeliveryStatus.delivered.rawValue), last_status = \(bind: status),
            last_error = NULL, delivered_at = \(bind: now())
            WHERE event_id = \(bind: delivery.event.id) AND endpoint_id = \(bind: delivery.endpointId) AND attempts = \(bind: delivery.attempt)
            AND status = \(bind: WebhookDeliveryStatus.pending.rawValue)
            """).run()
    }

    /// The attempt failed (`status` nil: no answer). It is tried again at `retryAt` if that is
    /// before the delivery's deadline; otherwise it ends `failed`. Returns the new status.
    @discardableResult
    public func recordFailure(_ delivery: ClaimedWebhookDelivery, status: Int?, error: String, retryAt: Date) async throws -> WebhookDeliveryStatus {
        let outcome: WebhookDeliveryStatus = retryAt < delivery.deadline ? .pending : .failed
        try await database.sql.raw("""
            UPDATE webhook_deliveries SET status = \(bind: outcome.rawValue), last_status = \(bind: status),
            last_error = \(bind: String(error.prefix(500))), next_attempt_at = \(bind: retryAt)
            WHERE event_id = \(bind: delivery.event.id) AND endpoint_id = \(bind: delivery.endpointId) AND attempts = \(bind: delivery.attempt)
            AND status = \(bind: WebhookDeliveryStatus.pending.rawValue)
            """).run()
        return outcome
    }

    /// Queues one event's deliveries of `app` again: a new attempt now, a new retry window, the same
    /// event id — to the endpoints that were subscribed when the event happened (added at or before
    /// its time, the rule `enqueue` follows), whatever their deliveries' status, and never to one
    /// added later (it did not ask for the app's past). An event without a delivery yet for such an
    /// endpoint gets one. Returns how many were queued.
    @discardableResult
    public func redeliver(app: String, event: UUID) async throws -> Int {
        guard try await database.sql.raw("SELECT id FROM commerce_events WHERE id = \(bind: event) AND app = \(bind: app)").first() != nil else {
            throw WebhookStoreError("App \(app) has no event \(event.uuidString.lowercased()).")
        }
        // Compared in the database, as `enqueue` does: the same stored times, never a round trip.
        let subscribed: SQLQueryString = """
            SELECT w.id FROM webhook_endpoints w JOIN commerce_events e ON e.id = \(bind: event)
            WHERE w.app = \(bind: app) AND w.created_at <= e.created_at
            """
        let at = now()
        try await database.sql.raw("""
            INSERT INTO webhook_deliveries (event_id, endpoint_id, app, status, attempts, next_attempt_at, window_start, created_at)
            SELECT \(bind: event), w.id, w.app, \(bind: WebhookDeliveryStatus.pending.rawValue), 0, \(bind: at), \(bind: at), \(bind: at)
            FROM webhook_endpoints w WHERE w.id IN (\(subscribed))
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = \(bind: event) AND d.endpoint_id = w.id)
            ON CONFLICT DO NOTHING
            """).run()
        return try await database.sql.raw("""
            UPDATE webhook_deliveries SET status = \(bind: WebhookDeliveryStatus.pending.rawValue), next_attempt_at = \(bind: at),
            window_start = \(bind: at) WHERE event_id = \(bind: event) AND app = \(bind: app)
            AND endpoint_id IN (\(subscribed))
            RETURNING endpoint_id
            """).all().count
    }

    /// The latest deliveries of `app`, newest first.
    public func deliveries(app: String, limit: Int = 100) async throws -> [WebhookDelivery] {
        try await deliveries(where: "d.app = \(bind: app)", limit: limit)
    }

    /// The latest deliveries of the events of one account (every app), newest first: the console's timeline.
    public func deliveries(account: UUID, limit: Int = 100) async throws -> [WebhookDelivery] {
        try await deliveries(where: "e.account_id = \(bind: account)", limit: limit)
    }

    private func deliveries(where condition: SQLQueryString, limit: Int) async throws -> [WebhookDelivery] {
        try await database.sql.raw("""
            SELECT d.event_id, d.endpoint_id, w.url, e.type, e.environment, d.status, d.attempts, d.next_attempt_at, d.last_status,
            d.last_error, d.delivered_at, d.created_at
            FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN commerce_events e ON e.id = d.event_id
            WHERE \(condition) ORDER BY e.created_at DESC, w.url LIMIT \(bind: limit)
            """).all().map { row in
            WebhookDelivery(
                eventId: try row.decode(column: "event_id", as: UUID.self), endpointId: try row.decode(column: "endpoint_id", as: UUID.self),
                url: try row.decode(column: "url", as: String.self), eventType: try row.decode(column: "type", as: String.self),
                environment: try row.decode(column: "environment", as: String.self),
                status: WebhookDeliveryStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .pending,
                attempts: try row.decode(column: "attempts", as: Int.self), nextAttemptAt: try row.decode(column: "next_attempt_at", as: Date.self),
                lastStatus: try row.decode(column: "last_status", as: Int?.self), lastError: try row.decode(column: "last_error", as: String?.self),
                deliveredAt: try row.decode(column: "delivered_at", as: Date?.self), createdAt: try row.decode(column: "created_at", as: Date.self))
        }
    }
}
