import Foundation
import SQLKit
import SoukCore

/// A renewal-date extension an operator asked Apple for.
public struct AppleRenewalExtension: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// One subscription (`PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`).
        case single
        /// Every eligible active subscriber of a product (`POST /inApps/v1/subscriptions/extend/mass`).
        case mass
    }

    public enum Status: String, Sendable, Equatable {
        /// Asked; a mass extension waits for Apple to complete it.
        case pending
        /// Apple extended it and the entitlements moved.
        case complete
        /// Apple refused it (ineligible, too many extensions, a bad request).
        case refused
        /// Apple gave no answer (an outage): whether it took the request is unknown; nothing moved.
        case unanswered
    }

    public var id: UUID
    public var app: String
    /// Souk's id of the request at Apple.
    public var requestIdentifier: String
    public var kind: Kind
    public var environment: CommerceEnvironment
    /// The App Store product id (mass) or the subscription's (single).
    public var productId: String?
    public var originalTransactionId: String?
    public var extendByDays: Int
    public var reasonCode: Int
    public var storefronts: [String]?
    public var status: Status
    public var requestedBy: String
    public var requestedAt: Date
    public var nextCheckAt: Date?
    public var attempts: Int
    public var succeededCount: Int64?
    public var failedCount: Int64?
    /// Purchases whose entitlement moved.
    public var movedCount: Int?
    public var detail: String?
    public var completedAt: Date?

    public init(id: UUID = UUID(), app: String, requestIdentifier: String, kind: Kind, environment: CommerceEnvironment, productId: String?,
                originalTransactionId: String?, extendByDays: Int, reasonCode: Int, storefronts: [String]? = nil, status: Status = .pending,
                requestedBy: String, requestedAt: Date, nextCheckAt: Date? = nil, attempts: Int = 0, succeededCount: Int64? = nil,
                failedCount: Int64? = nil, movedCount: Int? = nil, detail: String? = nil, completedAt: Date? = nil) {
        self.id = id
        self.app = app
        self.requestIdentifier = requestIdentifier
        self.kind = kind
        self.environment = environment
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.extendByDays = extendByDays
        self.reasonCode = reasonCode
        self.storefronts = storefronts
        self.status = status
        self.requestedBy = requestedBy
        self.requestedAt = requestedAt
        self.nextCheckAt = nextCheckAt
        self.attempts = attempts
        self.succeededCount = succeededCount
        self.failedCount = failedCount
        self.movedCount = movedCount
        self.detail = detail
        self.completedAt = completedAt
    }
}

/// The extensions operators asked for (`apple_renewal_extensions`): recorded before Apple is
/// asked, so a mass extension survives restarts; the extension worker claims a pending one with a
/// lease (a conditional update) to poll Apple's status.
public struct AppleRenewalExtensionStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    public static let lease: TimeInterval = 120

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    public func record(_ request: AppleRenewalExtension) async throws {
        try await database.sql.raw("""
            INSERT INTO apple_renewal_extensions (id, app, request_identifier, kind, environment, product_id, original_transaction_id,
            extend_by_days, reason_code, storefronts, status, requested_by, requested_at, next_check_at, attempts, detail)
            VALUES (\(bind: request.id), \(bind: request.app), \(bind: request.requestIdentifier), \(bind: request.kind.rawValue),
            \(bind: request.environment.rawValue), \(bind: request.productId), \(bind: request.originalTransactionId), \(bind: request.extendByDays),
            \(bind: request.reasonCode), \(bind: request.storefronts?.joined(separator: ",")), \(bind: request.status.rawValue),
            \(bind: request.requestedBy), \(bind: request.requestedAt), \(bind: request.nextCheckAt), 0, \(bind: request.detail))
            """).run()
    }

    /// Leases due pending mass extensions.
    public func claimDue(limit: Int) async throws -> [AppleRenewalExtension] {
        let at = now()
        let rows = try await database.sql.raw("""
            SELECT id, attempts FROM apple_renewal_extensions
            WHERE status = \(bind: AppleRenewalExtension.Status.pending.rawValue) AND kind = \(bind: AppleRenewalExtension.Kind.mass.rawValue)
            AND next_check_at <= \(bind: at)
            ORDER BY next_check_at LIMIT \(bind: limit)
            """).all()
        var claimed: [AppleRenewalExtension] = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self)
            let attempts = try row.decode(column: "attempts", as: Int.self)
            guard try await database.sql.raw("""
                UPDATE apple_renewal_extensions SET attempts = \(bind: attempts + 1), next_check_at = \(bind: at.addingTimeInterval(Self.lease))
                WHERE id = \(bind: id) AND attempts = \(bind: attempts) AND status = \(bind: AppleRenewalExtension.Status.pending.rawValue)
                RETURNING id
                """).first() != nil else { continue }
            if let found = try await request(id: id) { claimed.append(found) }
        }
        return claimed
    }

    /// Records where an extension stands now.
    public func update(_ id: UUID, status: AppleRenewalExtension.Status, nextCheckAt: Date?, succeeded: Int64? = nil, failed: Int64? = nil,
                       moved: Int? = nil, detail: String?) async throws {
        try await database.sql.raw("""
            UPDATE apple_renewal_extensions SET status = \(bind: status.rawValue), next_check_at = \(bind: nextCheckAt),
            succeeded_count = COALESCE(\(bind: succeeded), succeeded_count), failed_count = COALESCE(\(bind: failed), failed_count),
            moved_count = COALESCE(\(bind: moved), moved_count), detail = \(bind: detail),
            completed_at = \(bind: (status == .pending ? nil : now()) as Date?)
            WHERE id = \(bind: id)
            """).run()
    }

    public func request(id: UUID) async throws -> AppleRenewalExtension? {
        try await database.sql.raw("SELECT \(unsafeRaw: Self.columns) FROM apple_renewal_extensions WHERE id = \(bind: id)").first()
            .map(Self.decode)
    }

    /// An app's extensions, newest first.
    public func requests(app: String, limit: Int = 100) async throws -> [AppleRenewalExtension] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM apple_renewal_extensions WHERE app = \(bind: app) ORDER BY requested_at DESC LIMIT \(bind: limit)
            """).all().map(Self.decode)
    }

    static let columns = """
        id, app, request_identifier, kind, environment, product_id, original_transaction_id, extend_by_days, reason_code, storefronts, status,
        requested_by, requested_at, next_check_at, attempts, succeeded_count, failed_count, moved_count, detail, completed_at
        """

    static func decode(_ row: any SQLRow) throws -> AppleRenewalExtension {
        AppleRenewalExtension(
            id: try row.decode(column: "id", as: UUID.self), app: try row.decode(column: "app", as: String.self),
            requestIdentifier: try row.decode(column: "request_identifier", as: String.self),
            kind: AppleRenewalExtension.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .single,
            environment: CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) ?? .production,
            productId: try row.decode(column: "product_id", as: String?.self),
            originalTransactionId: try row.decode(column: "original_transaction_id", as: String?.self),
            extendByDays: try row.decode(column: "extend_by_days", as: Int.self), reasonCode: try row.decode(column: "reason_code", as: Int.self),
            storefronts: try row.decode(column: "storefronts", as: String?.self).map { $0.split(separator: ",").map(String.init) },
            status: AppleRenewalExtension.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .pending,
            requestedBy: try row.decode(column: "requested_by", as: String.self), requestedAt: try row.decode(column: "requested_at", as: Date.self),
            nextCheckAt: try row.decode(column: "next_check_at", as: Date?.self), attempts: try row.decode(column: "attempts", as: Int.self),
            succeededCount: try row.decode(column: "succeeded_count", as: Int64?.self), failedCount: try row.decode(column: "failed_count", as: Int64?.self),
            movedCount: try row.decode(column: "moved_count", as: Int?.self), detail: try row.decode(column: "detail", as: String?.self),
            completedAt: try row.decode(column: "completed_at", as: Date?.self))
    }
}
