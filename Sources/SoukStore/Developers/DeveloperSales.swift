import Foundation
import SQLKit
import SoukCore

/// A purchase of an organisation's in-app catalog as the developer API shows it: the buyer by the
/// account token of the app (StoreKit's `appAccountToken`), never by email or account id.
public struct DeveloperPurchase: Sendable, Equatable {
    public var purchase: StoredPurchase
    public var accountToken: UUID
}

/// A lifecycle event of an organisation's in-app catalog, the buyer by account token.
public struct DeveloperEvent: Sendable, Equatable {
    public var event: CommerceEvent
    public var accountToken: UUID
}

/// One page of a list in the order rows were recorded; `nextOffset` is nil on the last page.
public struct DeveloperPage<Item: Sendable & Equatable>: Sendable, Equatable {
    public var items: [Item]
    public var nextOffset: Int?
}

/// The purchases and lifecycle events of one app's catalog, page by page, oldest first (rows are
/// recorded in that order, so a page once read stays the same while new rows arrive at the end).
/// Each buyer's account token is made if the app never asked for it (`AccountTokenStore`).
public struct DeveloperSales: Sendable {
    let database: SoukDatabase
    let tokens: AccountTokenStore

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.tokens = AccountTokenStore(database: database, now: now)
    }

    public func purchases(app: String, offset: Int, limit: Int) async throws -> DeveloperPage<DeveloperPurchase> {
        let rows = try await database.sql.raw("""
            SELECT \(unsafeRaw: StoredPurchase.columns) FROM purchases WHERE app = \(bind: app)
            ORDER BY created_at, id LIMIT \(literal: limit + 1) OFFSET \(literal: offset)
            """).all()
        var items: [DeveloperPurchase] = []
        var known: [UUID: UUID] = [:]
        for row in rows.prefix(limit) {
            let purchase = try StoredPurchase.decode(row)
            let token = try await token(purchase.accountId, app: app, known: &known)
            items.append(DeveloperPurchase(purchase: purchase, accountToken: token))
        }
        return DeveloperPage(items: items, nextOffset: rows.count > limit ? offset + limit : nil)
    }

    /// Events of a type, source or environment this version does not know (a newer Souk wrote
    /// them) are left out of the page, but counted in its place.
    public func events(app: String, offset: Int, limit: Int) async throws -> DeveloperPage<DeveloperEvent> {
        let rows = try await database.sql.raw("""
            SELECT \(unsafeRaw: CommerceEventStore.columns()) FROM commerce_events WHERE app = \(bind: app)
            ORDER BY created_at, id LIMIT \(literal: limit + 1) OFFSET \(literal: offset)
            """).all()
        var items: [DeveloperEvent] = []
        var known: [UUID: UUID] = [:]
        for row in rows.prefix(limit) {
            guard let event = try CommerceEventStore.decode(row) else { continue }
            let token = try await token(event.accountId, app: app, known: &known)
            items.append(DeveloperEvent(event: event, accountToken: token))
        }
        return DeveloperPage(items: items, nextOffset: rows.count > limit ? offset + limit : nil)
    }

    private func token(_ account: UUID, app: String, known: inout [UUID: UUID]) async throws -> UUID {
        if let token = known[account] { return token }
        let token = try await tokens.token(account: account, app: app)
        known[account] = token
        return token
    }
}
