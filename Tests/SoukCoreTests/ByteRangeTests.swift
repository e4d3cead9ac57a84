import SoukCore
import Testing

@Suite struct ByteRangeTests {
    @Test func parsesTheThreeSingleRangeForms() {
        #expect(ByteRange.parse("bytes=0-99") == .from(0, through: 99))
        #expect(ByteRange.parse("bytes=100-") == .from(100, through: nil))
        #expect(ByteRange.parse("bytes=-500") == .suffix(500))
    }

    @Test(arguments: ["items=0-1", "bytes=0-1,5-6", "bytes=9-3", "bytes=-", "bytes=a-b", "bytes=", "0-5"])
    func ignoresWhatItDoesNotServe(_ header: String) {
        #expect(ByteRange.parse(header) == nil)
    }

    @Test func resolvesAgainstTheFileSize() {
        #expect(ByteRange.from(0, through: 99).resolve(size: 50) == 0...49)
        #expect(ByteRange.from(10, through: nil).resolve(size: 50) == 10...49)
        #expect(ByteRange.suffix(10).resolve(size: 50) == 40...49)
        #expect(ByteRange.suffix(500).resolve(size: 50) == 0...49)
        #expect(ByteRange.from(50, through: nil).resolve(size: 50) == nil)
        #expect(ByteRange.suffix(0).resolve(size: 50) == nil)
        #expect(ByteRange.from(0, through: 0).resolve(size: 0) == nil)
    }
}

@Suite struct FileRequestConditionsTests {
    let etag = "\"abc\""
    let modified: Int64 = 1_700_000_000

    @Test func noConditionsServesTheWholeFile() {
        #expect(FileRequestConditions().plan(size: 10, etag: etag, lastModified: modified) == .full)
    }

    @Test func matchingIfNoneMatchIsNotModified() {
        #expect(FileRequestConditions(ifNoneMatch: "\"zzz\", \"abc\"").plan(size: 10, etag: etag, lastModified: modified) == .notModified)
        #expect(FileRequestConditions(ifNoneMatch: "W/\"abc\"").plan(size: 10, etag: etag, lastModified: modified) == .notModified)
        #expect(FileRequestConditions(ifNoneMatch: "*").plan(size: 10, etag: etag, lastModified: modified) == .notModified)
        #expect(FileRequestConditions(ifNoneMatch: "\"other\"").plan(size: 10, etag: etag, lastModified: modified) == .full)
    }

    @Test func ifModifiedSinceIsIgnoredWhenIfNoneMatchIsPresent() {
        let since = HTTPDate.format(modified + 10)
        #expect(FileRequestConditions(ifModifiedSince: since).plan(size: 10, etag: etag, lastModified: modified) == .notModified)
        #expect(FileRequestConditions(ifNoneMatch: "\"other\"", ifModifiedSince: since).plan(size: 10, etag: etag, lastModified: modified) == .full)
        #expect(FileRequestConditions(ifModifiedSince: HTTPDate.format(modified - 1)).plan(size: 10, etag: etag, lastModified: modified) == .full)
    }

    @Test func rangeIsHonouredOnlyWhenIfRangeMatches() {
        #expect(FileRequestConditions(range: "bytes=2-4").plan(size: 10, etag: etag, lastModified: modified) == .partial(2...4))
        #expect(FileRequestConditions(range: "bytes=2-4", ifRange: etag).plan(size: 10, etag: etag, lastModified: modified) == .partial(2...4))
        #expect(FileRequestConditions(range: "bytes=2-4", ifRange: "\"old\"").plan(size: 10, etag: etag, lastModified: modified) == .full)
        #expect(FileRequestConditions(range: "bytes=2-4", ifRange: "W/\"abc\"").plan(size: 10, etag: etag, lastModified: modified) == .full)
        #expect(FileRequestConditions(range: "bytes=2-4", ifRange: HTTPDate.format(modified)).plan(size: 10, etag: etag, lastModified: modified) == .partial(2...4))
        #expect(FileRequestConditions(range: "bytes=2-4", ifRange: HTTPDate.format(modified - 60)).plan(size: 10, etag: etag, lastModified: modified) == .full)
    }

    @Test func rangePastTheEndIsUnsatisfiable() {
        #expect(FileRequestConditions(range: "bytes=10-").plan(size: 10, etag: etag, lastModified: modified) == .unsatisfiable)
    }
}

@Suite struct HTTPDateTests {
    @Test func formatsTheRFCExample() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    @Test(arguments: [Int64(0), 951_782_400, 1_709_251_199, 4_102_444_800])
    func roundTrips(_ seconds: Int64) {
        #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
    }

    @Test func rejectsOtherFormats() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == nil)
        #expect(HTTPDate.parse("yesterday") == nil)
    }
}
