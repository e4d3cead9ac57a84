import Foundation

/// The raw exports (docs/metrics.md, "Exports"): every purchase, or every lifecycle event, of one app
/// in a range of UTC days, one line each, in columns whose names and order never change.
public enum RawExportKind: String, Sendable, CaseIterable {
    case purchases
    case events

    /// The columns, in their order: the CSV header, and the keys of each JSON line in this order.
    public var columns: [String] {
        switch self {
        case .purchases:
            ["recorded_at", "app", "store", "environment", "status", "payment_id", "account_token", "product_id", "store_product_id",
             "product_type", "transaction_id", "original_transaction_id", "purchase_date", "expires_date", "quantity", "period_type",
             "subscription_state", "will_renew", "grace_expires_at", "revoked_at", "revocation_reason", "amount", "currency",
             "amount_refunded", "refunded_at", "country"]
        case .events:
            ["recorded_at", "occurred_at", "app", "event_id", "type", "source", "environment", "store", "account_token", "product_id",
             "entitlement_id", "payment_id", "transaction_id", "original_transaction_id", "expires_at", "amount", "currency"]
        }
    }
}

/// How an export is written: CSV (RFC 4180: a header line, CRLF line ends, fields quoted when they
/// hold a comma, a quote or a line break) or JSON Lines (one object per line, `\n`).
public enum ExportFormat: String, Sendable, CaseIterable {
    case csv
    case jsonl

    /// The media type of a download.
    public var contentType: String {
        switch self {
        case .csv: "text/csv; charset=utf-8; header=present"
        case .jsonl: "application/jsonl; charset=utf-8"
        }
    }
}

/// One field of an export line.
public enum ExportValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case bool(Bool)
    /// Written in UTC ISO 8601 with milliseconds: `2026-11-28T10:00:00.000Z`.
    case time(Date)
    /// CSV: an empty field; JSON: `null` (the key is always there).
    case null

    /// Each of these is `null` for nil.
    public static func string(_ value: String?) -> ExportValue { value.map { .text($0) } ?? .null }
    public static func number(_ value: Int64?) -> ExportValue { value.map { .integer($0) } ?? .null }
    public static func flag(_ value: Bool?) -> ExportValue { value.map { .bool($0) } ?? .null }
    public static func instant(_ value: Date?) -> ExportValue { value.map { .time($0) } ?? .null }
}
