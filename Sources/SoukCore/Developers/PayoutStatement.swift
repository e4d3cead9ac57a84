import Foundation

/// A calendar month in UTC, as statements name it: `2026-11`.
public struct StatementMonth: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int

    /// Parses `YYYY-MM` (years 2000–9999); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
              let year = Int(parts[0]), let month = Int(parts[1]), (2000...9999).contains(year), (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    /// The month `date` falls in, in UTC.
    public init(containing date: Date) {
        let parts = Self.calendar.dateComponents([.year, .month], from: date)
        self.year = parts.year ?? 1970
        self.month = parts.month ?? 1
    }

    /// The first instant of the month (00:00:00 UTC on the 1st).
    public var start: Date {
        Self.calendar.date(from: DateComponents(year: year, month: month, day: 1))!
    }

    /// The first instant of the next month: a statement covers `start ..< end`.
    public var end: Date {
        Self.calendar.date(from: DateComponents(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1))!
    }

    public var description: String { String(format: "%04d-%02d", year, month) }

    public static func < (lhs: StatementMonth, rhs: StatementMonth) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

/// One currency of a statement, in minor units: what was sold (`gross`), what was refunded in the
/// month (`refunds`, whenever the sale was), `net = gross − refunds`, the marketplace's commission
/// on the net, and `payout = net − commission`. A month whose refunds exceed its sales has a
/// negative net, commission and payout: the commission is given back with the refund.
public struct PayoutLine: Sendable, Equatable {
    public var currency: String
    public var sales: Int
    public var gross: Int64
    public var refundCount: Int
    public var refunds: Int64
    public var net: Int64 { gross - refunds }
    public var commission: Int64
    public var payout: Int64 { net - commission }

    public init(currency: String, sales: Int, gross: Int64, refundCount: Int, refunds: Int64, commissionPercent: Int) {
        self.currency = currency
        self.sales = sales
        self.gross = gross
        self.refundCount = refundCount
        self.refunds = refunds
        self.commission = Self.commission(of: gross - refunds, percent: commissionPercent)
    }

    /// `percent` of `amount`, rounded half-up to a whole minor unit (half away from zero for a
    /// negative amount, so a refund gives back exactly what its sale took).
    public static func commission(of amount: Int64, percent: Int) -> Int64 {
        let magnitude = (amount.magnitude * UInt64(percent) + 50) / 100
        return amount < 0 ? -Int64(magnitude) : Int64(magnitude)
    }
}

/// A developer organisation's statement for one month (docs/developers.md, "Payouts"): the paid-app
/// sales and refunds of its apps through the marketplace's own checkout, per currency, less the
/// commission. Marketplace memberships are the marketplace's and appear on no statement.
public struct PayoutStatement: Sendable, Equatable {
    public var developerID: String
    public var developerName: String
    public var month: StatementMonth
    public var commissionPercent: Int
    /// One line per currency with a sale or a refund in the month, by currency code.
    public var lines: [PayoutLine]

    public init(developerID: String, developerName: String, month: StatementMonth, commissionPercent: Int, lines: [PayoutLine]) {
        self.developerID = developerID
        self.developerName = developerName
        self.month = month
        self.commissionPercent = commissionPercent
        self.lines = lines.sorted { $0.currency < $1.currency }
    }

    /// The statement as CSV (RFC 4180, CRLF line ends): a header, then a row per currency with
    /// amounts in the currency's major units (`12.34`, `-0.50`, `500` for JPY).
    public var csv: String {
        var rows = ["month,developer,currency,sales,gross,refunds_count,refunds,net,commission_percent,commission,payout"]
        for line in lines {
            let amounts = [line.gross, line.refunds, line.net].map { Self.decimal($0, currency: line.currency) }
            rows.append(([month.description, Self.field(developerID), line.currency, String(line.sales), amounts[0], String(line.refundCount),
                          amounts[1], amounts[2], String(commissionPercent), Self.decimal(line.commission, currency: line.currency),
                          Self.decimal(line.payout, currency: line.currency)]).joined(separator: ","))
        }
        return rows.joined(separator: "\r\n") + "\r\n"
    }

    /// Minor units in major units with the currency's decimals: `1234 USD` → `12.34`, `-5 USD` → `-0.05`.
    public static func decimal(_ amount: Int64, currency: String) -> String {
        let digits = ISO4217.minorDigits(currency)
        let sign = amount < 0 ? "-" : ""
        guard digits > 0 else { return "\(amount)" }
        var divisor: UInt64 = 1
        for _ in 0..<digits { divisor *= 10 }
        let whole = amount.magnitude / divisor, fraction = String(amount.magnitude % divisor)
        return "\(sign)\(whole).\(String(repeating: "0", count: digits - fraction.count))\(fraction)"
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
