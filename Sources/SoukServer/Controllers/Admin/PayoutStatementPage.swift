import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// A payout statement as a page and as a CSV download, the same for the operator's console and the
/// developer console: a console renders its own layout around the `payout-statement` partial with
/// `values` (and its navigation), and answers its CSV route with `csvResponse`. The partial's
/// `has-lines` is `PageContext`'s, whichever console renders it.
struct PayoutStatementPage: Sendable {
    var statement: PayoutStatement
    /// Where this console serves the CSV of the same statement.
    var csvHref: String
    /// Where this console shows the same organisation's previous and next month (`<base>/<YYYY-MM>`).
    var monthBase: String

    /// The `payout-statement` partial's context.
    struct Values: Sendable {
        struct Line: Sendable {
            let currency: String
            let sales: String
            let gross: String
            let refundCount: String
            let refunds: String
            let net: String
            let commission: String
            let payout: String
        }

        let developerName: String
        let developerID: String
        let month: String
        let commissionPercent: String
        let csvHref: String
        let previousHref: String
        let previousMonth: String
        let nextHref: String
        let nextMonth: String
        let lines: [Line]
        /// Where the console's month picker goes (the developer console's; nil: no picker).
        var pickerAction: String?
    }

    var values: Values {
        let previous = StatementMonth(containing: statement.month.start.addingTimeInterval(-86_400))
        let next = StatementMonth(containing: statement.month.end)
        return Values(
            developerName: statement.developerName, developerID: statement.developerID, month: statement.month.description,
            commissionPercent: String(statement.commissionPercent), csvHref: csvHref,
            previousHref: "\(monthBase)/\(previous)", previousMonth: previous.description,
            nextHref: "\(monthBase)/\(next)", nextMonth: next.description,
            lines: statement.lines.map { line in
                let amount = { (value: Int64) in "\(PayoutStatement.decimal(value, currency: line.currency)) \(line.currency)" }
                return Values.Line(currency: line.currency, sales: String(line.sales), gross: amount(line.gross),
                                   refundCount: String(line.refundCount), refunds: amount(line.refunds), net: amount(line.net),
                                   commission: amount(line.commission), payout: amount(line.payout))
            })
    }

    /// The statement as `text/csv`, downloaded as `<developer>-<YYYY-MM>.csv`.
    var csvResponse: Response {
        var headers = Pages.securityHeaders
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(statement.developerID)-\(statement.month).csv\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: statement.csv)))
    }
}
