import Foundation
import SoukCore
import Testing

@Suite struct RFC3339Tests {
    @Test func readsUTCAndOffsets() {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.parse("2026-11-25T04:10:03Z") == Date(timeIntervalSince1970: 1_795_579_803))
        #expect(RFC3339.parse("2026-11-25T06:10:03+02:00") == Date(timeIntervalSince1970: 1_795_579_803))
        #expect(RFC3339.parse("2026-11-24T23:40:03-04:30") == Date(timeIntervalSince1970: 1_795_579_803))
        #expect(RFC3339.parse("2026-11-25t04:10:03z") == Date(timeIntervalSince1970: 1_795_579_803))
        #expect(RFC3339.parse("2026-11-25 04:10:03Z") == Date(timeIntervalSince1970: 1_795_579_803))
    }

    @Test func readsFractionsOfAnyLength() throws {
        let date = try #require(RFC3339.parse("2026-11-25T04:10:03.250Z"))
        #expect(abs(date.timeIntervalSince1970 - 1_795_579_803.25) < 0.000_001)
        let long = try #require(RFC3339.parse("2026-11-25T04:10:03.123456789Z"))
        #expect(abs(long.timeIntervalSince1970 - 1_795_579_803.123456789) < 0.000_001)
    }

    @Test func agreesWithFoundationAcrossCenturies() throws {
        let formatter = ISO8601DateFormatter()
        for text in ["1900-03-01T12:00:00Z", "2000-02-29T23:59:59Z", "2024-12-31T00:00:01Z", "2100-01-01T00:00:00Z", "1969-12-31T23:59:59Z"] {
            #expect(RFC3339.parse(text) == formatter.date(from: text), "\(text)")
        }
    }

    @Test(arguments: ["", "2026-11-25", "2026-11-25T04:10:03", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-25T24:00:00Z",
                      "2026-11-25T04:10:03.Z", "2026-11-25T04:10:03+0200", "26-11-25T04:10:03Z", "2026-11-25T04:10:03Z ",
                      "2026-11-25T04:10:03+24:00", "yesterday", "２０２６-11-25T04:10:03Z"])
    func refusesWhatIsNotADateTime(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func formatsInUTCAndReadsItBack() {
        let date = Date(timeIntervalSince1970: 1_795_579_803.9)
        #expect(RFC3339.format(date) == "2026-11-25T04:10:03Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        for seconds in stride(from: -5_000_000_000, to: 5_000_000_000, by: 97_654_321) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(RFC3339.parse(RFC3339.format(date)) == date)
        }
    }
}
