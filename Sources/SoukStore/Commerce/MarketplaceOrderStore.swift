import Foundation
import SQLKit
import SoukCore

/// One checkout of the marketplace's own sales (`marketplace_orders`).
public struct MarketplaceOrder: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        case open, paid, failed, cancelled, refunded
    }

    public var id: UUID
    public var accountId: UUID
    public var appleItemId: UInt64
    public var price: Price
    public var environment: CommerceEnvironment
    public var processor: String
    public var processorRef: String?
    public var idempotencyKey: String
    public var status: Status
    public var url: String?
    public var amountPaid: Int?
    public var amountRefunded: Int?
    public var createdAt: Date
    public var paidAt: Date?
    public var refundedAt: Date?
}

/// The marketplace's orders. Every change is one conditional statement, so
/// webhooks replayed or racing, and two checkouts of the same app at once, change an order once:
/// one open order per account and app (a partial unique index), `open → failed | cancelled` only
/// from `open`, `→ paid` from any unpaid state (money the processor took is never lost; the index
/// holds only open orders, so a late-paid order may sit beside a newer open one), a refund only of
/// a paid order.
public struct MarketplaceOrderStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    static let columns = "id, account_id, apple_item_id, currency, amount, environment, processor, processor_ref, idempotency_key, status, url, " +
        "amount_paid, amount_refunded, created_at, paid_at, refunded_at"

    /// The account's open order for the app, or a new one at `price` (`created` says which).
    public func openOrder(account: UUID, appleItemId: UInt64, price: Price, environment: CommerceEnvironment,
                          processor: String) async throws -> (order: MarketplaceOrder, created: Bool) {
        let at = now()
        let id = UUID()
        let inserted = try await database.sql.raw("""
            INSERT INTO marketplace_orders (id, account_id, apple_item_id, currency, amount, environment, processor, idempotency_key, status,
            created_at, updated_at)
            VALUES (\(bind: id), \(bind: account), \(bind: AppleIDColumn.store(appleItemId)), \(bind: price.currency), \(bind: Int64(price.amount)),
            \(bind: environment.rawValue), \(bind: processor), \(bind: UUID().uuidString.lowercased()), \(bind: MarketplaceOrder.Status.open.rawValue),
            \(bind: at), \(bind: at))
            ON CONFLICT DO NOTHING RETURNING id
            """).first() != nil
        guard let order = try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM marketplace_orders WHERE account_id = \(bind: account)
            AND apple_item_id = \(bind: AppleIDColumn.store(appleItemId)) AND status = \(bind: MarketplaceOrder.Status.open.rawValue)
            """).first().map(Self.decode) else {
            throw PurchaseStoreError("the open order of an account vanished while it was read")
        }
        return (order, inserted && order.id == id)
    }

    /// Records where the buyer pays and the processor's reference.
    public func attach(_ id: UUID, processorRef: String, url: String) async throws {
        try await database.sql.update("marketplace_orders").set("processor_ref", to: processorRef).set("url", to: url)
            .set("updated_at", to: now()).where("id", .equal, id).run()
    }

    /// An order paid (`amount`: what the processor charged): an open one, or a `failed` or
    /// `cancelled` one the processor says it took the money for after all. Returns the order when
    /// this call paid it, nil when it was paid before, refunded or unknown: replays change nothing.
    @discardableResult
    public func markPaid(_ id: UUID, amount: Int, paymentRef: String? = nil) async throws -> MarketplaceOrder? {
        let at = now()
        return try await database.sql.raw("""
            UPDATE marketplace_orders SET status = \(bind: MarketplaceOrder.Status.paid.rawValue), amount_paid = \(bind: Int64(amount)),
            payment_ref = \(bind: paymentRef), paid_at = \(bind: at), updated_at = \(bind: at)
            WHERE id = \(bind: id) AND status IN (\(bind: MarketplaceOrder.Status.open.rawValue), \(bind: MarketplaceOrder.Status.failed.rawValue),
            \(bind: MarketplaceOrder.Status.cancelled.rawValue))
            RETURNING \(unsafeRaw: Self.columns)
            """).first().map(Self.decode)
    }

    /// How a checkout ends unpaid.
    public enum Closing: Sendable {
        /// The payment failed (Stripe: a delayed payment method such as SEPA debit did not pay).
        case failed
        /// The checkout ran out (Stripe expires an unpaid Checkout Session after 24 hours).
        case cancelled

        var status: MarketplaceOrder.Status { self == .failed ? .failed : .cancelled }
    }

    /// The open order the processor knows as `ref`, closed unpaid: the next checkout of the app
    /// opens a new order (a new idempotency key, so a new session). Returns the order when this
    /// call closed it, nil when it was not open (a paid order is never touched; replays change nothing).
    @discardableResult
    public func close(processor: String, ref: String, as closing: Closing) async throws -> MarketplaceOrder? {
        let at = now()
        return try await database.sql.raw("""
            UPDATE marketplace_orders SET status = \(bind: closing.status.rawValue), updated_at = \(bind: at)
            WHERE processor = \(bind: processor) AND processor_ref = \(bind: ref) AND status = \(bind: MarketplaceOrder.Status.open.rawValue)
            RETURNING \(unsafeRaw: Self.columns)
            """).first().map(Self.decode)
    }

    /// A refund of a paid order, found by the payment it was paid with. `amount` is the total
    /// refunded so far (Stripe's cumulative `amount_refunded`). `full`: the whole charge is back and
    /// the order becomes `refunded` (the app goes). Otherwise the order stays paid (the buyer keeps
    /// the app) and records the total and its date, only when it is larger than the one recorded, so
    /// a replayed or late older event changes nothing. Returns the order when this call changed it.
    @discardableResult
    public func refund(processor: String, paymentRef: String, amount: Int, full: Bool = true) async throws -> MarketplaceOrder? {
        guard full || amount > 0 else { return nil }
        let at = now()
        let paid = MarketplaceOrder.Status.paid.rawValue
        return try await database.sql.raw("""
            UPDATE marketplace_orders SET status = \(bind: full ? MarketplaceOrder.Status.refunded.rawValue : paid),
            amount_refunded = \(bind: Int64(amount)), refunded_at = \(bind: at), updated_at = \(bind: at)
            WHERE processor = \(bind: processor) AND payment_ref = \(bind: paymentRef) AND status = \(bind: paid)
            AND (\(full) OR amount_refunded IS NULL OR amount_refunded < \(bind: Int64(amount)))
            RETURNING \(unsafeRaw: Self.columns)
            """).first().map(Self.decode)
    }

    /// The order the processor knows as `ref`.
    public func order(processor: String, ref: String) async throws -> MarketplaceOrder? {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM marketplace_orders WHERE processor = \(bind: processor) AND processor_ref = \(bind: ref)
            """).first().map(Self.decode)
    }

    /// The payment a paid order was paid with (a Stripe PaymentIntent; a development order's own reference).
    public func paymentRef(_ id: UUID) async throws -> String? {
        try await database.sql.raw("SELECT payment_ref FROM marketplace_orders WHERE id = \(bind: id)").first()?
            .decode(column: "payment_ref", as: String?.self)
    }

    public func order(_ id: UUID) async throws -> MarketplaceOrder? {
        try await database.sql.raw("SELECT \(unsafeRaw: Self.columns) FROM marketplace_orders WHERE id = \(bind: id)").first().map(Self.decode)
    }

    /// Whether the account bought the app (a paid order, not fully refunded): one indexed query.
    public func owns(account: UUID, appleItemId: UInt64) async throws -> Bool {
        try await database.sql.raw("""
            SELECT id FROM marketplace_orders WHERE account_id = \(bind: account) AND apple_item_id = \(bind: AppleIDColumn.store(appleItemId))
            AND status = \(bind: MarketplaceOrder.Status.paid.rawValue) LIMIT 1
            """).first() != nil
    }

    /// The account's orders, newest first.
    public func orders(account: UUID) async throws -> [MarketplaceOrder] {
        try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.columns) FROM marketplace_orders WHERE account_id = \(bind: account) ORDER BY created_at DESC
            """).all().map(Self.decode)
    }

    /// Deletes the account's sandbox orders (of one app, or all): `souk sandbox clear`. Returns how many.
    public func clear(account: UUID, appleItemId: UInt64?) async throws -> Int {
        var query = database.sql.delete(from: "marketplace_orders").where("account_id", .equal, account)
            .where("environment", .equal, CommerceEnvironment.sandbox.rawValue)
        if let appleItemId { query = query.where("apple_item_id", .equal, AppleIDColumn.store(appleItemId)) }
        return try await query.returning("id").all().count
    }

    static func decode(_ row: any SQLRow) throws -> MarketplaceOrder {
        MarketplaceOrder(
            id: try row.decode(column: "id", as: UUID.self), accountId: try row.decode(column: "account_id", as: UUID.self),
            appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
            price: Price(currency: try row.decode(column: "currency", as: String.self), amount: Int(try row.decode(column: "amount", as: Int64.self))),
            environment: CommerceEnvironment(rawValue: try row.decode(column: "environment", as: String.self)) ?? .sandbox,
            processor: try row.decode(column: "processor", as: String.self), processorRef: try row.decode(column: "processor_ref", as: String?.self),
            idempotencyKey: try row.decode(column: "idempotency_key", as: String.self),
            status: MarketplaceOrder.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .failed,
            url: try row.decode(column: "url", as: String?.self),
            amountPaid: try row.decode(column: "amount_paid", as: Int64?.self).map(Int.init),
            amountRefunded: try row.decode(column: "amount_refunded", as: Int64?.self).map(Int.init),
            createdAt: try row.decode(column: "created_at", as: Date.self), paidAt: try row.decode(column: "paid_at", as: Date?.self),
            refundedAt: try row.decode(column: "refunded_at", as: Date?.self))
    }
}
