import Foundation
import SoukCore
import Testing

/// The rules of a payout statement: UTC months, commission rounded half-up, CSV amounts.
@Suite struct PayoutStatementTests {
    @Test func monthsAreUTCCalendarMonths() throws {
        let november = try #require(StatementMonth("2026-11"))
        #expect(november.start == ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z"))
        #expect(november.end == ISO8601DateFormatter().date(from: "2026-12-01T00:00:00Z"))
        let december = try #require(StatementMonth("2026-12"))
        #expect(december.end == ISO8601DateFormatter().date(from: "2027-01-01T00:00:00Z"))
        #expect(StatementMonth(containing: november.end) == december && december.description == "2026-12")
        for bad in ["2026-00", "2026-13", "2026-1", "1999-12", "2026/11", "2026-11-01", "２０２６-11", ""] {
            #expect(StatementMonth(bad) == nil, "\(bad)")
        }
    }

    @Test func commissionIsRoundedHalfUpToAMinorUnit() {
        #expect(PayoutLine.commission(of: 10, percent: 15) == 2)     // 1.5 → 2
        #expect(PayoutLine.commission(of: 9, percent: 15) == 1)      // 1.35 → 1
        #expect(PayoutLine.commission(of: 499, percent: 15) == 75)   // 74.85 → 75
        #expect(PayoutLine.commission(of: -10, percent: 15) == -2)   // a refund gives back what its sale took
        #expect(PayoutLine.commission(of: 1_000, percent: 0) == 0)
        #expect(PayoutLine.commission(of: 1_000, percent: 100) == 1_000)
        let line = PayoutLine(currency: "JPY", sales: 0, gross: 0, refundCount: 1, refunds: 500, commissionPercent: 15)
        #expect(line.net == -500 && line.commission == -75 && line.payout == -425)
    }

    @Test func csvAmountsUseTheCurrencysDecimals() throws {
        let month = try #require(StatementMonth("2026-11"))
        let statement = PayoutStatement(developerID: "acme", developerName: "Acme", month: month, commissionPercent: 15, lines: [
            PayoutLine(currency: "JPY", sales: 1, gross: 500, refundCount: 0, refunds: 0, commissionPercent: 15),
            PayoutLine(currency: "EUR", sales: 0, gross: 0, refundCount: 1, refunds: 5, commissionPercent: 15),
        ])
        #expect(statement.lines.map(\.currency) == ["EUR", "JPY"])
        #expect(statement.csv.split(separator: "\r\n").dropFirst() == ["2026-11,acme,EUR,0,0.00,1,0.05,-0.05,15,-0.01,-0.04",
                                                                      "2026-11,acme,JPY,1,500,0,0,500,15,75,425"])
    }
}
