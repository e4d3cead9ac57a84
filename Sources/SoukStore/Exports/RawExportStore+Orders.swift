import Foundation
import SQLKit
import SoukCore

extension RawExportStore {
    /// What a marketplace order gives an export: the sale as a purchase, or its payment and its
    /// refund as events (the marketplace's checkout records no events of its own).
    enum OrderMoment {
        case paid, paidEvent, refundEvent

        /// The order's column a row is ranged and ordered by.
        var time: String { self == .refundEvent ? "refunded_at" : "paid_at" }
        var eventType: String { self == .refundEvent ? "refund" : "initial_purchase" }
    }

    func orders(_ moment: OrderMoment, app: String, sales: MarketplaceSalesScope, from: Date, to: Date,
                after position: ExportSource.Position?, limit: Int) async throws -> [ExportRecord] {
        let owner: SQLQueryString
        switch sales {
        case .none: return []
        case .every: owner = ""
        case .developer(let id): owner = " AND a.developer_id = \(bind: id)"
        }
        let time = moment.time
        // A refund's time moves when the order is refunded again; the paid time never does.
        let rows = try await database.sql.raw("""
            SELECT o.id, o.\(unsafeRaw: time) AS at, o.apple_item_id, o.environment, o.status, o.account_id, t.token,
            COALESCE(o.amount_paid, o.amount) AS amount, o.currency, o.amount_refunded, o.paid_at, o.refunded_at
            FROM marketplace_orders o JOIN apps a ON a.apple_item_id = o.apple_item_id
            LEFT JOIN account_tokens t ON t.account_id = o.account_id AND t.app = a.bundle_id
            WHERE a.bundle_id = \(bind: app)\(owner) AND o.paid_at IS NOT NULL
            AND o.\(unsafeRaw: time) >= \(bind: from) AND o.\(unsafeRaw: time) < \(bind: to)\
            \(Self.after(position, table: "marketplace_orders", alias: "o", time: time))
            ORDER BY o.\(unsafeRaw: time), o.id LIMIT \(literal: limit)
            """).all()
        var records: [ExportRecord] = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self), at = try row.decode(column: "at", as: Date.self)
            let item = String(AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)))
            let environment = ExportValue.text(try row.decode(column: "environment", as: String.self))
            let token = try await token(row, app: app), orderId = ExportValue.text(id.uuidString.lowercased())
            let currency = ExportValue.text(try row.decode(column: "currency", as: String.self))
            let refunded = ExportValue.number(try row.decode(column: "amount_refunded", as: Int64?.self))
            let values: [ExportValue]
            switch moment {
            case .paid:
                values = [
                    .time(at), .text(app), .text("marketplace"), environment, .text(try row.decode(column: "status", as: String.self)),
                    orderId, token, .null, .text(item), .text("paid-app"), .null, .null, .time(at), .null, .integer(1), .null, .null, .null,
                    .null, .null, .null, .integer(try row.decode(column: "amount", as: Int64.self)), currency, refunded,
                    .instant(try row.decode(column: "refunded_at", as: Date?.self)), .null,
                ]
            case .paidEvent, .refundEvent:
                let amount = moment == .paidEvent ? ExportValue.integer(try row.decode(column: "amount", as: Int64.self)) : refunded
                values = [
                    .time(at), .time(at), .text(app), .text("\(id.uuidString.lowercased())/\(moment.eventType)"), .text(moment.eventType),
                    .text("checkout"), environment, .text("marketplace"), token, .null, .null, orderId, .null, .null, .null, amount, currency,
                ]
            }
            records.append(ExportRecord(at: at, id: id, values: values))
        }
        return records
    }
}
