import Foundation
import SQLKit
import SoukCore

/// What each store last said about an app's own setup (`souk stores status`): the last fault
/// (the operator's credentials refused, the store down or rate-limiting, settings incomplete) and
/// when it last answered. A fault here is never a verdict on anyone's purchase.
public struct StoreStatusStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// One app and store.
    public struct Status: Sendable, Equatable {
        public var app: String
        public var store: CommerceStore
        public var lastErrorKind: StoreFault.Kind?
        public var lastError: String?
        public var lastErrorAt: Date?
        public var lastOkAt: Date?

        /// Whether the last thing the store did was fail.
        public var isFailing: Bool {
            guard let lastErrorAt else { return false }
            return lastOkAt.map { $0 < lastErrorAt } ?? true
        }
    }

    /// Notes a fault (a pending-at-store purchase is not one: the store answered).
    public func recordFault(app: String, store: CommerceStore, _ fault: StoreFault, at: Date) async throws {
        guard fault.kind != .pendingAtStore else { return try await recordAnswer(app: app, store: store, at: at) }
        try await database.sql.raw("""
            INSERT INTO store_status (app, store, last_error_kind, last_error, last_error_at)
            VALUES (\(bind: app), \(bind: store.rawValue), \(bind: fault.kind.rawValue), \(bind: String(fault.detail.prefix(1000))), \(bind: at))
            ON CONFLICT (app, store) DO UPDATE SET last_error_kind = excluded.last_error_kind, last_error = excluded.last_error,
            last_error_at = excluded.last_error_at
            """).run()
    }

    /// Notes that the store answered (a verdict, an acknowledgement).
    public func recordAnswer(app: String, store: CommerceStore, at: Date) async throws {
        try await database.sql.raw("""
            INSERT INTO store_status (app, store, last_ok_at) VALUES (\(bind: app), \(bind: store.rawValue), \(bind: at))
            ON CONFLICT (app, store) DO UPDATE SET last_ok_at = excluded.last_ok_at
            """).run()
    }

    /// Every app's (or one app's) statuses, by app then store.
    public func list(app: String? = nil) async throws -> [Status] {
        var query = database.sql.select().columns("app", "store", "last_error_kind", "last_error", "last_error_at", "last_ok_at")
            .from("store_status")
        if let app { query = query.where("app", .equal, app) }
        return try await query.orderBy("app").orderBy("store").all().compactMap { row in
            guard let store = CommerceStore(rawValue: try row.decode(column: "store", as: String.self)) else { return nil }
            return Status(app: try row.decode(column: "app", as: String.self), store: store,
                          lastErrorKind: try row.decode(column: "last_error_kind", as: String?.self).flatMap(StoreFault.Kind.init(rawValue:)),
                          lastError: try row.decode(column: "last_error", as: String?.self),
                          lastErrorAt: try row.decode(column: "last_error_at", as: Date?.self),
                          lastOkAt: try row.decode(column: "last_ok_at", as: Date?.self))
        }
    }
}
