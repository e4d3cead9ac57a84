import FluentKit
import Foundation
import SQLKit
import SoukCore
import Synchronization

/// The purchases people made in the apps Souk serves: intake of verified
/// purchases, the pending queue, transfers, consumable balances, revocation, and the granted
/// records the entitlement engine reads.
///
/// Idempotency lives in the database: a store transaction is one row (`UNIQUE (app, store,
/// transaction_id)`), a CloudEvent one link (`UNIQUE (app, source, event_id)`). Every write runs in
/// one transaction serialized per store transaction (PostgreSQL: an advisory lock on it; SQLite:
/// the database's write lock, taken by the transaction's first statement), and appends one
/// `commerce_changes` row per account whose purchases or balances it changed.
public struct PurchaseStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date
    /// Called after a write committed, once per account and app it changed (the entitlement index
    /// of this process forgets them at once; other processes read `commerce_changes`).
    let onChange: (@Sendable (_ account: UUID, _ app: String) -> Void)?

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() },
                onChange: (@Sendable (_ account: UUID, _ app: String) -> Void)? = nil) {
        self.database = database
        self.now = now
        self.onChange = onChange
    }

    // MARK: Reads

    /// The granted purchases of one account in one app, and its unrevoked promotional grants, in one
    /// indexed query (`purchases_account_app`, `entitlement_grants_account_app`), for the entitlement engine.
    public func grantedRecords(account: UUID, app: String) async throws -> [PurchaseRecord] {
        try await Self.grantedRecords(account: account, app: app, on: database.sql)
    }

    static func grantedRecords(account: UUID, app: String, on sql: any SQLDatabase) async throws -> [PurchaseRecord] {
        // A grant is a record of no product (`product_id` empty) that opens `granted_entitlement`.
        let rows = try await sql.raw("""
            SELECT id, product_id, product_type, environment, purchase_date, expires_date, revoked_at, quantity, grace_expires_at,
            CAST(NULL AS TEXT) AS granted_entitlement FROM purchases
            WHERE account_id = \(bind: account) AND app = \(bind: app) AND status = \(bind: PurchaseStatus.granted.rawValue)
            UNION ALL
            SELECT id, '', \(bind: ProductType.nonConsumable.rawValue), environment, starts_at, expires_at, revoked_at, 1, NULL,
            entitlement_id FROM entitlement_grants
            WHERE account_id = \(bind: account) AND app = \(bind: app) AND revoked_at IS NULL
            """).all()
        var records: [PurchaseRecord] = try rows.compactMap { row in
            guard let type = ProductType(rawValue: try row.decode(column: "product_type", as: String.self)),
                  let environment = try row.decode(column: "environment", as: String?.self).flatMap(CommerceEnvironment.init(rawValue:)),
                  let purchaseDate = try row.decode(column: "purchase_date", as: Date?.self) else { return nil }
            return PurchaseRecord(paymentId: try row.decode(column: "id", as: UUID.self),
                                  productId: try row.decode(column: "product_id", as: String.self), type: type,
                                  environment: environment, purchaseDate: purchaseDate,
                                  expiresDate: try row.decode(column: "expires_date", as: Date?.self),
                                  revokedAt: try row.decode(column: "revoked_at", as: Date?.self),
                                  quantity: try row.decode(column: "quantity", as: Int.self),
                                  graceExpiresDate: try row.decode(column: "grace_expires_at", as: Date?.self),
                                  grantedEntitlement: try row.decode(column: "granted_entitlement", as: String?.self))
        }
        // The marketplace's own membership plans count with its purchases.
        if app == AppPricing.marketplaceApp {
            records += try await MarketplaceSubscriptionStore.subscriptions(account: account, on: sql).filter { !$0.pending }.map(\.record)
        }
        return records
    }

    /// One payment, or nil.
    public func payment(_ id: UUID) async throws -> StoredPurchase? {
        try await Self.payment(id, on: database.sql)
    }

    static func payment(_ id: UUID, on sql: any SQLDatabase) async throws -> StoredPurchase? {
        try await sql.raw("SELECT \(unsafeRaw: StoredPurchase.columns) FROM purchases WHERE id = \(bind: id)").first()
            .map(StoredPurchase.decode)
    }

    /// The payment a CloudEvent reported, or nil when the event is new.
    public func payment(for event: PurchaseEventKey) async throws -> StoredPurchase? {
        guard let id = try await Self.linkedPayment(event, on: database.sql) else { return nil }
        return try await payment(id)
    }

    static func linkedPayment(_ event: PurchaseEventKey, on sql: any SQLDatabase) async throws -> UUID? {
        try await sql.raw("""
            SELECT payment_id FROM purchase_events
            WHERE app = \(bind: event.app) AND source = \(bind: event.source) AND event_id = \(bind: event.id)
            """).first()?.decode(column: "payment_id", as: UUID.self)
    }

    /// Purchases, oldest first: of one account (in every app, or in `app`), or of one app.
    public func list(account: UUID? = nil, app: String? = nil, limit: Int = 10_000) async throws -> [StoredPurchase] {
        var query = database.sql.select().column(SQLRaw(StoredPurchase.columns)).from("purchases")
        if let account { query = query.where("account_id", .equal, account) }
        if let app { query = query.where("app", .equal, app) }
        return try await query.orderBy("created_at").orderBy("id").limit(limit).all().map(StoredPurchase.decode)
    }

    /// The account's consumable balances in the app (products with a row, zero included).
    public func balances(account: UUID, app: String) async throws -> [ConsumableBalance] {
        try await database.sql.raw("""
            SELECT product_id, environment, balance FROM consumable_balances
            WHERE account_id = \(bind: account) AND app = \(bind: app) ORDER BY product_id, environment
            """).all().compactMap { row in
            guard let environment = CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) else { return nil }
            return ConsumableBalance(productId: try row.decode(column: "product_id", as: String.self), environment: environment,
                                     balance: Int(try row.decode(column: "balance", as: Int64.self)))
        }
    }

    /// Whether the account is a sandbox account (nil: no such account).
    public func accountIsSandbox(_ account: UUID) async throws -> Bool? {
        try await database.sql.raw("SELECT sandbox FROM accounts WHERE id = \(bind: account)").first()?
            .decode(column: "sandbox", as: Bool.self)
    }

    /// The latest revision of `commerce_changes` (0 before any change).
    public func revision() async throws -> Int64 {
        try await database.sql.raw("SELECT value FROM commerce_revision WHERE id = 1").first()?.decode(column: "value", as: Int64.self) ?? 0
    }

    // MARK: Writing

    /// What a write changed: the accounts whose purchases or balances moved, in `app`.
    final class Changes: @unchecked Sendable {
        var accounts: Set<UUID> = []
    }

    /// Runs `body` in one transaction, serialized with every other write on `key`, then records the
    /// changes it reported in `commerce_changes` (same transaction) and tells `onChange` after the
    /// commit. A transaction PostgreSQL ended to break a deadlock or a serialization failure wrote
    /// nothing: it is run again (`conflictAttempts` in all), so such a race is never the caller's error.
    func write<T: Sendable>(app: String, key: String, _ body: @escaping @Sendable (any SQLDatabase, Changes) async throws -> T) async throws -> T {
        let isPostgres = database.location.isPostgres
        // Writers of this process take turns here, awaiting without holding a connection or a thread:
        // on SQLite all of them (its busy handler would spin a thread-pool thread while another writer
        // works), on PostgreSQL those of one key (fifty copies of one purchase must not hold fifty pooled
        // connections while they wait for the advisory lock, which orders them across processes).
        let turn = isPostgres ? key : ""
        await Self.writers.acquire(turn)
        defer { Self.writers.release(turn) }
        var attempt = 1
        while true {
            do {
                return try await writeOnce(app: app, key: key, isPostgres: isPostgres, body)
            } catch where attempt < Self.conflictAttempts && Self.isConflict(error) {
                attempt += 1
            }
        }
    }

    /// One attempt of `write`.
    private func writeOnce<T: Sendable>(app: String, key: String, isPostgres: Bool,
                                        _ body: @escaping @Sendable (any SQLDatabase, Changes) async throws -> T) async throws -> T {
        let at = now()
        let changes = Changes()
        let result = try await database.transaction { db in
            let sql = db as! any SQLDatabase
            // On SQLite, `transaction` has taken the write lock already.
            if isPostgres {
                try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.advisoryLockClass), hashtext(\(bind: key)))").run()
            }
            let result = try await body(sql, changes)
            for account in changes.accounts.sorted(by: { $0.uuidString < $1.uuidString }) {
                // Bumped last: on PostgreSQL the counter row's lock is held only until the commit.
                guard let row = try await sql.raw("UPDATE commerce_revision SET value = value + 1 WHERE id = 1 RETURNING value").first() else {
                    throw PurchaseStoreError("commerce_revision has no row; the database was not migrated by this version of Souk")
                }
                try await sql.insert(into: "commerce_changes").columns("revision", "account_id", "app", "changed_at")
                    .values(SQLBind(try row.decode(column: "value", as: Int64.self)), SQLBind(account), SQLBind(app), SQLBind(at))
                    .run()
            }
            return result
        }
        if let onChange {
            for account in changes.accounts { onChange(account, app) }
        }
        return result
    }

    static let writers = WriterQueue()

    /// The first key of the purchase path's advisory locks (the second is the hash of the key).
    static var advisoryLockClass: Int32 { 0x5C1D }
}

/// A state the purchase tables should never be in (a bug or a foreign write), said plainly.
public struct PurchaseStoreError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// First-come, first-served turns per key, awaited without blocking a thread or holding a
/// database connection. A key's entry exists only while someone holds or awaits it.
final class WriterQueue: Sendable {
    private struct Turn {
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let turns = Mutex<[String: Turn]>([:])

    func acquire(_ key: String = "") async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = turns.withLock { turns in
                if turns[key] != nil {
                    turns[key]!.waiters.append(continuation)
                    return false
                }
                turns[key] = Turn()
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func release(_ key: String = "") {
        let next = turns.withLock { turns -> CheckedContinuation<Void, Never>? in
            guard var turn = turns[key], !turn.waiters.isEmpty else {
                turns[key] = nil
                return nil
            }
            let next = turn.waiters.removeFirst()
            turns[key] = turn
            return next
        }
        next?.resume()
    }
}
