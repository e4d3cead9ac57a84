import Foundation
import Hummingbird
import SQLKit
import SoukCore
import SoukStore
import Synchronization

/// Rows for the raw exports' tests, written straight into the tables (many of them, fast): store
/// purchases and lifecycle events of an app, and marketplace orders of a marketplace app.
public enum ExportRows {
    /// A granted App Store purchase of `app` recorded at `at`; answers its payment id.
    @discardableResult
    /// With `price`, the price its store stated (milliunits and currency) and the part refunded (milliunits).
    public static func purchase(_ database: SoukDatabase, app: String, account: UUID, at: Date, transaction: String,
                                product: String = "reader.coins.100", price: (milliunits: Int64, currency: String)? = nil,
                                refundedMilliunits: Int64? = nil, country: String? = nil) async throws -> UUID {
        let id = UUID()
        try await database.sql.raw("""
            INSERT INTO purchases (id, app, account_id, store, status, environment, product_id, store_product_id, claimed_transaction_id,
            transaction_id, original_transaction_id, product_type, purchase_date, quantity, attempts, created_at, updated_at,
            price_milliunits, currency, refunded_amount, country)
            VALUES (\(bind: id), \(bind: app), \(bind: account), 'apple_store', 'granted', 'Production', \(bind: product),
            \(bind: "com.example.\(product)"), \(bind: transaction), \(bind: transaction), \(bind: transaction), 'consumable', \(bind: at), 1, 1,
            \(bind: at), \(bind: at), \(bind: price?.milliunits), \(bind: price?.currency), \(bind: refundedMilliunits), \(bind: country))
            """).run()
        return id
    }

    /// A lifecycle event of `app` recorded at `at`; answers its id.
    @discardableResult
    public static func event(_ database: SoukDatabase, app: String, account: UUID, at: Date, type: LifecycleEventType = .initialPurchase,
                             transaction: String) async throws -> UUID {
        let event = CommerceEvent(app: app, accountId: account, type: type, source: .intake, environment: .production, occurredAt: at,
                                  createdAt: at, productId: "reader.coins.100", store: "apple_store", transactionId: transaction,
                                  originalTransactionId: transaction, dedupKey: "\(type.rawValue)|\(transaction)")
        try await CommerceEventStore.record(event, on: database.sql)
        return event.id
    }

    /// A paid marketplace order of the app `appleItemId` (refunded `refunded` minor units at `refundedAt`).
    @discardableResult
    public static func order(_ database: SoukDatabase, appleItemId: UInt64, account: UUID, paidAt: Date, amount: Int64, currency: String = "EUR",
                             refunded: Int64? = nil, refundedAt: Date? = nil) async throws -> UUID {
        let id = UUID()
        try await database.sql.raw("""
            INSERT INTO marketplace_orders (id, account_id, apple_item_id, currency, amount, environment, processor, idempotency_key, status,
            amount_paid, amount_refunded, created_at, paid_at, refunded_at, updated_at)
            VALUES (\(bind: id), \(bind: account), \(bind: AppleIDColumn.store(appleItemId)), \(bind: currency), \(bind: amount), 'Production',
            'development', \(bind: UUID().uuidString), \(bind: refundedAt == nil ? "paid" : "refunded"), \(bind: amount), \(bind: refunded),
            \(bind: paidAt), \(bind: paidAt), \(bind: refundedAt), \(bind: paidAt))
            """).run()
        return id
    }
}

/// A fake S3-compatible store for one test: every `PUT /<bucket>/<key>` that reaches it is kept
/// (the body by key, bucket first) and answered 200; `faults` stages outages (a failed upload is
/// not kept). Signatures are not checked here (the end-to-end check against moto does).
public final class FakeObjectStore: Sendable {
    public let faults = StoreFaults()
    private let stored = Mutex<[String: String]>([:])

    public init() {}

    /// The objects held now, by `<bucket>/<key>`.
    public var objects: [String: String] { stored.withLock { $0 } }

    public func run(_ body: @escaping @Sendable (_ endpoint: String) async throws -> Void) async throws {
        try await FakeStoreServer.run(faults: faults, routes: { router in
            router.put("**") { request, _ in
                var request = request
                let bytes = try await request.collectBody(upTo: 64 << 20)
                self.stored.withLock { $0[String(request.uri.path.dropFirst())] = String(buffer: bytes) }
                return Response(status: .ok)
            }
        }, body)
    }
}
