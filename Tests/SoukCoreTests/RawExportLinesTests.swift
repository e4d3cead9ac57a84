import Foundation
import SoukCore
import Testing

/// The raw exports' line shapes (docs/metrics.md, "Exports"): fixed columns, RFC 4180 CSV, JSON
/// keys in the columns' order, UTC ISO 8601 times with milliseconds.
@Suite struct RawExportLinesTests {
    static func row(_ kind: RawExportKind, _ changes: [String: ExportValue]) -> [ExportValue] {
        kind.columns.map { changes[$0] ?? .null }
    }

    @Test func csvQuotesOnlyWhatRFC4180Needs() {
        #expect(RawExportLines.header(.events, format: .csv) == RawExportKind.events.columns.joined(separator: ",") + "\r\n")
        #expect(RawExportLines.header(.events, format: .jsonl) == nil)
        let values = Self.row(.purchases, ["recorded_at": .time(Date(timeIntervalSince1970: 1_794_787_200.5)), "app": .text("com.a,b"),
                                           "revocation_reason": .text("said \"no\"\r\nthen left"), "quantity": .integer(3),
                                           "will_renew": .bool(false), "amount": .integer(-299)])
        let line = RawExportLines.line(values, kind: .purchases, format: .csv)
        #expect(line.hasPrefix("2026-11-16T00:00:00.500Z,\"com.a,b\",,"))
        #expect(line.contains(",3,,,false,,,\"said \"\"no\"\"\r\nthen left\",-299,,,,\r\n"))
        #expect(line.hasSuffix(",\r\n") && line.filter { $0 == "," }.count >= RawExportKind.purchases.columns.count - 1)
    }

    @Test func jsonLinesKeepEveryKeyInOrder() throws {
        let values = Self.row(.events, ["recorded_at": .time(Date(timeIntervalSince1970: 0.123)), "type": .text("refund"),
                                        "app": .text("tab\there \u{1}"), "amount": .integer(200), "currency": .text("JPY")])
        let line = RawExportLines.line(values, kind: .events, format: .jsonl)
        #expect(line.hasPrefix("{\"recorded_at\":\"1970-01-01T00:00:00.123Z\",\"occurred_at\":null,\"app\":\"tab\\there \\u0001\","))
        #expect(line.hasSuffix(",\"amount\":200,\"currency\":\"JPY\"}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object.count == RawExportKind.events.columns.count && object["type"] as? String == "refund")
    }

    @Test func timesAreUTCWithMilliseconds() {
        #expect(ExportTime.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ExportTime.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(ExportTime.iso8601(Date(timeIntervalSince1970: 1_798_761_599.999)) == "2026-12-31T23:59:59.999Z")
        #expect(ExportTime.iso8601(Date(timeIntervalSince1970: 1_762_736_400.123)) == "2025-11-10T01:00:00.123Z")
        #expect(ExportTime.iso8601(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }
}
