import SoukCore
import Testing

@Suite struct OSVersionTests {
    @Test func comparesNumericallyNotAlphabetically() {
        #expect(OSVersion("17.10")! > OSVersion("17.4")!)
        #expect(OSVersion("17.4.1")! > OSVersion("17.4")!)
        #expect(OSVersion("18")! > OSVersion("17.99.99")!)
    }

    @Test func missingPartsCountAsZero() {
        #expect(OSVersion("17")! == OSVersion("17.0.0")!)
        #expect(Set([OSVersion("17")!, OSVersion("17.0")!]).count == 1)
        #expect(!(OSVersion("17.0")! < OSVersion("17")!))
    }

    @Test(arguments: ["", "17.", ".4", "17..4", "v17", "17.4-beta", "1.2.3.4.5", "17.a", " 17", "99999999999"])
    func rejectsMalformed(_ text: String) {
        #expect(OSVersion(text) == nil)
    }

    @Test func printsCanonicalForm() {
        #expect(OSVersion("017.04")!.description == "17.4")
    }
}

@Suite struct AppleIDTests {
    @Test func parsesDigitsUpToUInt64Max() {
        #expect(AppleID.parse("6476788646") == 6_476_788_646)
        #expect(AppleID.parse("18446744073709551615") == UInt64.max)
        #expect(AppleID.parse("0") == 0)
    }

    @Test(arguments: ["", "-1", "+5", "12a", "1.0", " 1", "18446744073709551616", "１２"])
    func rejectsAnythingButDigits(_ text: String) {
        #expect(AppleID.parse(text) == nil)
    }

    @Test func readsJSONStringsAndNumbers() {
        #expect(AppleID.from(json: "863214182") == 863_214_182)
        #expect(AppleID.from(json: 863_214_182) == 863_214_182)
        #expect(AppleID.from(json: -3) == nil)
        #expect(AppleID.from(json: 1.5) == nil)
        #expect(AppleID.from(json: nil) == nil)
    }

    /// JSON Schema counts `95858.0` and `9.5858e4` as integers, so the document's `integer` accepts them: so does Souk.
    @Test func readsIntegerValuedNumberLiterals() {
        let cases: [(String, UInt64?)] = [
            ("95858.0", 95_858), ("9.5858e4", 95_858), ("95858E0", 95_858), ("6446000001.000", 6_446_000_001), ("0.0", 0), ("0e5", 0),
            ("1.8446744073709551615e19", UInt64.max), ("95858.5", nil), ("1e-1", nil), ("-1.0", nil), ("1.8446744073709551616e19", nil),
            ("1e400", nil), (".5", nil),
        ]
        for (literal, expected) in cases {
            #expect(AppleID.from(json: JSONValue.number(literal)) == expected, "\(literal)")
        }
    }
}

@Suite struct PlatformTests {
    @Test func normalisesAnySpellingToLowerCase() {
        #expect(Platform(rawValue: "iOS") == .iOS)
        #expect(Platform(rawValue: "IOS") == .iOS)
        #expect(Platform(rawValue: "iPadOS") == .iPadOS)
    }

    @Test func rejectsEmptyAndOddNames() {
        #expect(Platform(rawValue: "") == nil)
        #expect(Platform(rawValue: "i OS") == nil)
        #expect(Platform(rawValue: "ios/../x") == nil)
    }
}

@Suite struct PackagePathTests {
    @Test(arguments: ["manifest.json", "variant/abc.ipa", "delta/x-y_z.ipa", "a/b/c"])
    func acceptsPlainRelativePaths(_ path: String) {
        #expect(PackagePath.isSafeRelative(path))
    }

    @Test(arguments: ["", "/etc/passwd", "../x", "variant/../../x", "variant//x", "./x", "variant\\x", "variant%2Fx", "a/\u{0}b", "a/"])
    func rejectsPathsThatCouldLeaveThePackage(_ path: String) {
        #expect(!PackagePath.isSafeRelative(path))
    }
}
