import Foundation
import SQLKit
import SoukCore

/// The console dashboard's figures over the last `days` UTC days, read from the tables that hold
/// them: active subscriptions per day (store subscriptions and marketplace plans, sandbox left
/// out), and the marketplace's own revenue per day and per app in each currency (orders paid on
/// that day less their refunds, plan charges less plan refunds). Counts kept nowhere else come from `DailyCounts`.
public struct DashboardFigures: Sendable {
    public struct Revenue: Sendable, Equatable {
        public var currency: String
        /// Minor units per day, oldest first.
        public var perDay: [Int]
        /// Minor units per item: `app:<AppleItemID>` or `plan:<product id>`.
        public var perItem: [String: Int]
    }

    public var days: [String]
    public var activeSubscriptions: [Int]
    /// By total, highest first.
    public var revenue: [Revenue]

    /// Reads the figures for the `days` days ending with `end`'s day.
    public static func read(database: SoukDatabase, days: Int, endingAt end: Date) async throws -> DashboardFigures {
        let firstDay = (end.timeIntervalSince1970 / 86_400).rounded(.down) - Double(days - 1)
        let start = Date(timeIntervalSince1970: firstDay * 86_400)
        let labels = (0..<days).map { DailyCounts.day(start.addingTimeInterval(Double($0) * 86_400)) }
        func index(_ date: Date) -> Int? {
            let offset = Int(((date.timeIntervalSince1970 - start.timeIntervalSince1970) / 86_400).rounded(.down))
            return (0..<days).contains(offset) ? offset : nil
        }
        // A subscription counts on a day when it had begun by the day's end and had not expired or been revoked by then.
        var active = [Int](repeating: 0, count: days)
        func count(from begin: Date, to finish: Date) {
            for day in 0..<days {
                let dayEnd = start.addingTimeInterval(Double(day + 1) * 86_400)
                if begin < dayEnd, finish >= dayEnd { active[day] += 1 }
            }
        }
        let sql = database.sql
        for row in try await sql.raw("""
            SELECT started_at, expires_at, revoked_at FROM marketplace_subscriptions
            WHERE expires_at >= \(bind: start) AND sandbox = \(bind: false)
            """).all() {
            let revoked = try row.decode(column: "revoked_at", as: Date?.self)
            count(from: try row.decode(column: "started_at", as: Date.self),
                  to: min(try row.decode(column: "expires_at", as: Date.self), revoked ?? .distantFuture))
        }
        for row in try await sql.raw("""
            SELECT original_purchase_date, purchase_date, expires_date, revoked_at FROM purchases
            WHERE product_type = \(bind: ProductType.autoRenewable.rawValue) AND expires_date >= \(bind: start)
              AND (environment IS NULL OR environment <> \(bind: CommerceEnvironment.sandbox.rawValue))
            """).all() {
            guard let begin = try row.decode(column: "original_purchase_date", as: Date?.self) ?? row.decode(column: "purchase_date", as: Date?.self),
                  let expires = try row.decode(column: "expires_date", as: Date?.self) else { continue }
            count(from: begin, to: min(expires, try row.decode(column: "revoked_at", as: Date?.self) ?? .distantFuture))
        }

        var revenue: [String: Revenue] = [:]
        func add(_ amount: Int, currency: String, at date: Date, item: String) {
            guard let day = index(date) else { return }
            var entry = revenue[currency] ?? Revenue(currency: currency, perDay: [Int](repeating: 0, count: days), perItem: [:])
            entry.perDay[day] += amount
            entry.perItem[item, default: 0] += amount
            revenue[currency] = entry
        }
        for row in try await sql.raw("""
            SELECT apple_item_id, currency, amount, amount_paid, paid_at FROM marketplace_orders
            WHERE paid_at >= \(bind: start) AND environment = \(bind: CommerceEnvironment.production.rawValue)
            """).all() {
            guard let paid = try row.decode(column: "paid_at", as: Date?.self) else { continue }
            let amount = try row.decode(column: "amount_paid", as: Int64?.self) ?? row.decode(column: "amount", as: Int64.self)
            add(Int(amount), currency: try row.decode(column: "currency", as: String.self), at: paid,
                item: "app:\(AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)))")
        }
        for row in try await sql.raw("""
            SELECT apple_item_id, currency, amount, amount_paid, amount_refunded, refunded_at FROM marketplace_orders
            WHERE refunded_at >= \(bind: start) AND environment = \(bind: CommerceEnvironment.production.rawValue)
            """).all() {
            // A full refund may name no amount: then all that was paid came back.
            guard let refunded = try row.decode(column: "refunded_at", as: Date?.self) else { continue }
            let amount = try row.decode(column: "amount_refunded", as: Int64?.self) ?? row.decode(column: "amount_paid", as: Int64?.self)
                ?? row.decode(column: "amount", as: Int64.self)
            add(-Int(amount), currency: try row.decode(column: "currency", as: String.self), at: refunded,
                item: "app:\(AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)))")
        }
        for row in try await sql.raw("""
            SELECT c.kind, c.amount, c.currency, c.charged_at, s.product_id FROM marketplace_subscription_charges c
            JOIN marketplace_subscriptions s ON s.id = c.subscription_id
            WHERE c.charged_at >= \(bind: start) AND s.sandbox = \(bind: false)
            """).all() {
            let amount = Int(try row.decode(column: "amount", as: Int64.self))
            add(try row.decode(column: "kind", as: String.self) == "refund" ? -abs(amount) : amount,
                currency: try row.decode(column: "currency", as: String.self), at: try row.decode(column: "charged_at", as: Date.self),
                item: "plan:" + (try row.decode(column: "product_id", as: String.self)))
        }
        return DashboardFigures(days: labels, activeSubscriptions: active,
                                revenue: revenue.values.sorted { ($0.perDay.reduce(0, +), $0.currency) > ($1.perDay.reduce(0, +), $1.currency) })
    }
}
