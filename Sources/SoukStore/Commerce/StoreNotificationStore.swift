import Foundation
import SQLKit
import SoukCore

/// Where a received notification is in its processing.
public enum StoreNotificationStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for (or being retried by) the worker.
    case queued
    /// Its effect, if any, is recorded.
    case processed
    /// Kept but without effect: an unknown type, or older than what the purchase already shows.
    case ignored
    /// It names a purchase Souk has never seen; kept so the operator can list it.
    case unmatched
    /// Retries ran out; `last_error` says why.
    case failed
}

/// A notification as the route received it, before any processing.
public struct ReceivedStoreNotification: Sendable, Equatable {
    public var app: String
    /// `apple_store`, `google_play`, `amazon` or `roku` (the `CommerceStore` raw value).
    public var store: String
    /// Apple `notificationUUID`, Pub/Sub `messageId`: the deduplication key within (app, store).
    public var notificationId: String
    public var type: String
    public var subtype: String?
    public var environment: String?
    public var signedDate: Date
    /// The raw request body, so the worker (or a later reprocess) reads exactly what the store sent.
    public var payload: String

    public init(app: String, store: String, notificationId: String, type: String, subtype: String? = nil,
                environment: String? = nil, signedDate: Date, payload: String) {
        self.app = app
        self.store = store
        self.notificationId = notificationId
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signedDate = signedDate
        self.payload = payload
    }
}

/// A stored notification, as the worker and the operator see it.
public struct StoredStoreNotification: Sendable, Equatable {
    public var id: UUID
    public var received: ReceivedStoreNotification
    public var status: StoreNotificationStatus
    public var summary: String?
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var receivedAt: Date
    public var processedAt: Date?
}

/// What `receive` did: a new row, or a copy of one already stored (which has no further effect).
public enum StoreNotificationReceipt: Sendable, Equatable {
    case stored(UUID)
    case duplicate
}

/// The durable queue of store notifications. The route calls `receive`
/// and answers the store at once; workers `claimDue` a row with a lease (a conditional update, so
/// two processes sharing PostgreSQL never process the same attempt), then `complete` or `backOff`.
///
/// Ordering: a worker is given the oldest due `signed_date` of an app first, and a row is not
/// handed out while an older row of the same app and store is still queued (due, held by a worker
/// or backing off) — so a renewal signed before an expiry is applied before it even when the
/// expiry arrived first. The price: one failing notification delays its app's later ones until it
/// settles or fails for good (`maxAttempts` back-offs of at most `storeRetryMaxMs`).
/// A row whose lease ran out (a worker died) becomes due again when its lease ends.
public struct StoreNotificationStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    /// How long a claimed notification is left to its worker (a store call takes at most ~30 s with retries).
    public static let lease: TimeInterval = 120
    /// After this many failed attempts a notification is marked `failed` (and listed) instead of retried.
    public static let maxAttempts = 12

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// Stores a notification once: a second copy under the same (app, store, notification id) is
    /// answered `.duplicate` and changes nothing. `holdFor`: seconds the worker leaves the new row
    /// alone, because the route processes it itself (a route that dies meanwhile leaves it to the worker).
    public func receive(_ notification: ReceivedStoreNotification, holdFor: TimeInterval = 0) async throws -> StoreNotificationReceipt {
        let id = UUID()
        let at = now()
        let due = at.addingTimeInterval(holdFor)
        let row = try await database.sql.raw("""
            INSERT INTO store_notifications (id, app, store, notification_id, type, subtype, environment, signed_date, payload,
            status, attempts, next_attempt_at, received_at)
            VALUES (\(bind: id), \(bind: notification.app), \(bind: notification.store), \(bind: notification.notificationId),
            \(bind: notification.type), \(bind: notification.subtype), \(bind: notification.environment), \(bind: notification.signedDate),
            \(bind: notification.payload), \(bind: StoreNotificationStatus.queued.rawValue), 0, \(bind: due), \(bind: at))
            ON CONFLICT (app, store, notification_id) DO NOTHING
            RETURNING id
            """).first()
        return row == nil ? .duplicate : .stored(id)
    }

    /// Leases the due queued notification with the oldest `signed_date` (for `lease` seconds), or nil.
    /// A row waits while an older row of the same app and store is still queued, so notifications
    /// are processed in the order the store signed them.
    public func claimDue() async throws -> StoredStoreNotification? {
        let at = now()
        let queued = StoreNotificationStatus.queued.rawValue
        for _ in 0..<5 {
            guard let candidate = try await database.sql.raw("""
                SELECT n.id, n.attempts FROM store_notifications n
                WHERE n.status = \(bind: queued) AND n.next_attempt_at <= \(bind: at)
                AND NOT EXISTS (SELECT 1 FROM store_notifications o WHERE o.app = n.app AND o.store = n.store
                    AND o.status = \(bind: queued) AND o.signed_date < n.signed_date AND o.id <> n.id)
                ORDER BY n.signed_date, n.received_at LIMIT 1
                """).first() else { return nil }
            let id = try candidate.decode(column: "id", as: UUID.self)
            let attempts = try candidate.decode(column: "attempts", as: Int.self)
            guard try await database.sql.raw("""
                UPDATE store_notifications SET attempts = \(bind: attempts + 1), next_attempt_at = \(bind: at.addingTimeInterval(Self.lease))
                WHERE id = \(bind: id) AND attempts = \(bind: attempts) AND status = \(bind: queued)
                RETURNING id
                """).first() != nil else { continue }
            return try await notification(id: id)
        }
        return nil
    }

    /// Settles a claimed notification: processed, ignored, unmatched (or failed for good).
    public func complete(_ id: UUID, status: StoreNotificationStatus, summary: String?) async throws {
        try await database.sql.raw("""
            UPDATE store_notifications SET status = \(bind: status.rawValue), summary = \(bind: summary), last_error = NULL,
            processed_at = \(bind: now())
            WHERE id = \(bind: id)
            """).run()
    }

    /// The attempt failed for a reason that may pass (a store outage, a database hiccup): retried at
    /// `retryAt`, or `failed` once `maxAttempts` is reached. Returns the status it is left in.
    @discardableResult
    public func backOff(_ id: UUID, error: String, retryAt: Date) async throws -> StoreNotificationStatus {
        guard let row = try await database.sql.raw("SELECT attempts FROM store_notifications WHERE id = \(bind: id)").first() else {
            return .failed
        }
        let attempts = try row.decode(column: "attempts", as: Int.self)
        let status: StoreNotificationStatus = attempts >= Self.maxAttempts ? .failed : .queued
        try await database.sql.raw("""
            UPDATE store_notifications SET status = \(bind: status.rawValue), last_error = \(bind: error),
            next_attempt_at = \(bind: retryAt)
            WHERE id = \(bind: id)
            """).run()
        return status
    }

    /// Puts settled notifications of `app` back in the queue (after the operator fixed a setting),
    /// e.g. every `unmatched` one. Returns how many.
    public func requeue(app: String, status: StoreNotificationStatus) async throws -> Int {
        let rows = try await database.sql.raw("""
            UPDATE store_notifications SET status = \(bind: StoreNotificationStatus.queued.rawValue), attempts = 0,
            next_attempt_at = \(bind: now()), processed_at = NULL
            WHERE app = \(bind: app) AND status = \(bind: status.rawValue)
            RETURNING id
            """).all()
        return rows.count
    }

    /// The notification a store sent under `notificationId`, if stored.
    public func notification(app: String, store: String, notificationId: String) async throws -> StoredStoreNotification? {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM store_notifications
            WHERE app = \(bind: app) AND store = \(bind: store) AND notification_id = \(bind: notificationId)
            """).first().map(Self.decode)
    }

    /// One notification by id.
    public func notification(id: UUID) async throws -> StoredStoreNotification? {
        try await database.sql.raw("SELECT \(unsafeRaw: Self.columns) FROM store_notifications WHERE id = \(bind: id)")
            .first().map(Self.decode)
    }

    /// The notifications of `app` (all statuses, unknown types included), newest received first.
    public func notifications(app: String, store: String? = nil, limit: Int = 100) async throws -> [StoredStoreNotification] {
        if let store {
            return try await database.sql.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM store_notifications WHERE app = \(bind: app) AND store = \(bind: store)
                ORDER BY received_at DESC, signed_date DESC LIMIT \(bind: limit)
                """).all().map(Self.decode)
        }
        return try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM store_notifications WHERE app = \(bind: app)
            ORDER BY received_at DESC, signed_date DESC LIMIT \(bind: limit)
            """).all().map(Self.decode)
    }

    static let columns = """
        id, app, store, notification_id, type, subtype, environment, signed_date, payload, status, summary, attempts,
        next_attempt_at, last_error, received_at, processed_at
        """

    static func decode(_ row: any SQLRow) throws -> StoredStoreNotification {
        StoredStoreNotification(
            id: try row.decode(column: "id", as: UUID.self),
            received: ReceivedStoreNotification(
                app: try row.decode(column: "app", as: String.self), store: try row.decode(column: "store", as: String.self),
                notificationId: try row.decode(column: "notification_id", as: String.self),
                type: try row.decode(column: "type", as: String.self), subtype: try row.decode(column: "subtype", as: String?.self),
                environment: try row.decode(column: "environment", as: String?.self),
                signedDate: try row.decode(column: "signed_date", as: Date.self), payload: try row.decode(column: "payload", as: String.self)),
            status: StoreNotificationStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .queued,
            summary: try row.decode(column: "summary", as: String?.self), attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: try row.decode(column: "next_attempt_at", as: Date.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            receivedAt: try row.decode(column: "received_at", as: Date.self),
            processedAt: try row.decode(column: "processed_at", as: Date?.self))
    }
}
