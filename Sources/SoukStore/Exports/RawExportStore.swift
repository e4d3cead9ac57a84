import Foundation
import SQLKit
import SoukCore

/// The rows of the raw exports (docs/metrics.md, "Exports"): an app's purchases and lifecycle events
/// at every store (`purchases`, `commerce_events`), and its sales through the marketplace's own
/// checkout (`marketplace_orders` of the marketplace apps with that bundle id). A row belongs to the
/// range by the time Souk recorded it, so consecutive ranges hold every row exactly once. Buyers
/// are named by their account token in the app (made if the app never asked for it), never by
/// email or account id.
public struct RawExportStore: Sendable {
    let database: SoukDatabase
    let tokens: AccountTokenStore

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.tokens = AccountTokenStore(database: database, now: now)
    }

    /// The sources of an export of `kind` for `app` over `from ..< to`: the catalog's rows when
    /// `catalog`, and the marketplace's sales of the apps `sales` names.
    public func sources(_ kind: RawExportKind, app: String, catalog: Bool, sales: MarketplaceSalesScope, from: Date, to: Date) -> [ExportSource] {
        var sources: [ExportSource] = []
        switch kind {
        case .purchases:
            if catalog { sources.append(ExportSource(name: "purchases") { try await purchases(app: app, from: from, to: to, after: $0, limit: $1) }) }
            if sales != .none {
                sources.append(ExportSource(name: "marketplace sales") {
                    try await orders(.paid, app: app, sales: sales, from: from, to: to, after: $0, limit: $1)
                })
            }
        case .events:
            if catalog { sources.append(ExportSource(name: "events") { try await events(app: app, from: from, to: to, after: $0, limit: $1) }) }
            if sales != .none {
                for moment in [OrderMoment.paidEvent, .refundEvent] {
                    sources.append(ExportSource(name: "marketplace \(moment.eventType)") {
                        try await orders(moment, app: app, sales: sales, from: from, to: to, after: $0, limit: $1)
                    })
                }
            }
        }
        return sources
    }

    /// `AND (<time>, <id>) > (<the last row's time>, <its id>)`, the time read again by id (the row
    /// read earlier when it was deleted since).
    static func after(_ position: ExportSource.Position?, table: String, alias: String, time: String) -> SQLQueryString {
        guard let position else { return "" }
        return """
             AND (\(unsafeRaw: alias).\(unsafeRaw: time), \(unsafeRaw: alias).id) > \
            (COALESCE((SELECT \(unsafeRaw: time) FROM \(unsafeRaw: table) WHERE id = \(bind: position.id)), \(bind: position.at)), \(bind: position.id))
            """
    }

    /// The buyer's account token in `app`: the one joined in, or made now.
    func token(_ row: any SQLRow, app: String) async throws -> ExportValue {
        if let known = try row.decode(column: "token", as: String?.self) { return .text(known) }
        let account = try row.decode(column: "account_id", as: UUID.self)
        return .text(try await tokens.token(account: account, app: app).uuidString.lowercased())
    }

    func purchases(app: String, from: Date, to: Date, after position: ExportSource.Position?, limit: Int) async throws -> [ExportRecord] {
        let rows = try await database.sql.raw("""
            SELECT p.id, p.created_at, p.store, p.environment, p.status, p.account_id, t.token, p.product_id, p.store_product_id,
            p.product_type, p.transaction_id, p.original_transaction_id, p.purchase_date, p.expires_date, p.quantity, p.period_type,
            p.subscription_state, p.will_renew, p.grace_expires_at, p.revoked_at, p.revocation_reason,
            p.price_milliunits, p.currency, p.refunded_amount, p.country
            FROM purchases p LEFT JOIN account_tokens t ON t.account_id = p.account_id AND t.app = p.app
            WHERE p.app = \(bind: app) AND p.created_at >= \(bind: from) AND p.created_at < \(bind: to)\
            \(Self.after(position, table: "purchases", alias: "p", time: "created_at"))
            ORDER BY p.created_at, p.id LIMIT \(literal: limit)
            """).all()
        var records: [ExportRecord] = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self), at = try row.decode(column: "created_at", as: Date.self)
            let values: [ExportValue] = [
                .time(at), .text(app), .text(try row.decode(column: "store", as: String.self)),
                .string(try row.decode(column: "environment", as: String?.self)), .text(try row.decode(column: "status", as: String.self)),
                .text(id.uuidString.lowercased()), try await token(row, app: app),
                .text(try row.decode(column: "product_id", as: String.self)), .text(try row.decode(column: "store_product_id", as: String.self)),
                .text(try row.decode(column: "product_type", as: String.self)), .string(try row.decode(column: "transaction_id", as: String?.self)),
                .string(try row.decode(column: "original_transaction_id", as: String?.self)),
                .instant(try row.decode(column: "purchase_date", as: Date?.self)), .instant(try row.decode(column: "expires_date", as: Date?.self)),
                .integer(Int64(try row.decode(column: "quantity", as: Int.self))), .string(try row.decode(column: "period_type", as: String?.self)),
                .string(try row.decode(column: "subscription_state", as: String?.self)), .flag(try row.decode(column: "will_renew", as: Bool?.self)),
                .instant(try row.decode(column: "grace_expires_at", as: Date?.self)), .instant(try row.decode(column: "revoked_at", as: Date?.self)),
                .string(try row.decode(column: "revocation_reason", as: String?.self)),
            ] + (try Self.storePrice(row)) + [.string(try row.decode(column: "country", as: String?.self))]
            records.append(ExportRecord(at: at, id: id, values: values))
        }
        return records
    }

    /// `amount`, `currency`, `amount_refunded`, `refunded_at` of a store purchase: the price its store
    /// stated (milliunits, kept at intake) in minor units of its currency, the refunded part likewise;
    /// empty where the store stated none (Amazon; Google's trials and introductory phases), never a
    /// price taken from the catalog.
    static func storePrice(_ row: any SQLRow) throws -> [ExportValue] {
        guard let currency = try row.decode(column: "currency", as: String?.self),
              let milli = try row.decode(column: "price_milliunits", as: Int64?.self),
              let amount = MetricPeriodGatherer.minorUnits(milli, currency) else { return [.null, .null, .null, .null] }
        let refunded = (try row.decode(column: "refunded_amount", as: Int64?.self)).flatMap { MetricPeriodGatherer.minorUnits($0, currency) }
        return [.integer(amount), .text(currency), .number(refunded), .null]
    }

    func events(app: String, from: Date, to: Date, after position: ExportSource.Position?, limit: Int) async throws -> [ExportRecord] {
        let rows = try await database.sql.raw("""
            SELECT e.id, e.created_at, e.occurred_at, e.type, e.source, e.environment, e.store, e.account_id, t.token, e.product_id,
            e.entitlement_id, e.payment_id, e.transaction_id, e.original_transaction_id, e.expires_at
            FROM commerce_events e LEFT JOIN account_tokens t ON t.account_id = e.account_id AND t.app = e.app
            WHERE e.app = \(bind: app) AND e.created_at >= \(bind: from) AND e.created_at < \(bind: to)\
            \(Self.after(position, table: "commerce_events", alias: "e", time: "created_at"))
            ORDER BY e.created_at, e.id LIMIT \(literal: limit)
            """).all()
        var records: [ExportRecord] = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self), at = try row.decode(column: "created_at", as: Date.self)
            let values: [ExportValue] = [
                .time(at), .time(try row.decode(column: "occurred_at", as: Date.self)), .text(app), .text(id.uuidString.lowercased()),
                .text(try row.decode(column: "type", as: String.self)), .text(try row.decode(column: "source", as: String.self)),
                .text(try row.decode(column: "environment", as: String.self)), .string(try row.decode(column: "store", as: String?.self)),
                try await token(row, app: app), .string(try row.decode(column: "product_id", as: String?.self)),
                .string(try row.decode(column: "entitlement_id", as: String?.self)),
                .string(try row.decode(column: "payment_id", as: UUID?.self)?.uuidString.lowercased()),
                .string(try row.decode(column: "transaction_id", as: String?.self)),
                .string(try row.decode(column: "original_transaction_id", as: String?.self)),
                .instant(try row.decode(column: "expires_at", as: Date?.self)), .null, .null,
            ]
            records.append(ExportRecord(at: at, id: id, values: values))
        }
        return records
    }
}
