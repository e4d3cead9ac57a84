import Foundation
import SoukCore
import Testing

@Suite struct JSONValueTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": [] , "f": {}} "#)
        #expect(value["a"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("d"))
        #expect(value["e"] == .array([]))
        #expect(value["f"] == .object([]))
        #expect(value["b"] == .object([JSONMember("c", .string("d"))]))
        #expect(value["missing"] == nil)
    }

    @Test func keepsLargeIntegersExactly() throws {
        let value = try parse(#"{"id": 18446744073709551615}"#)
        #expect(value["id"].flatMap(AppleID.from(json:)) == UInt64.max)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        #expect(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(try parse("\"caf\u{e9}\"") == .string("café"))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "{a:1}", "01", "1.", "-", "1e", "tru", "nul",
        "\"unterminated", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{1}b\"", "[1] 2", "{\"a\":1,}",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) }
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 60) + String(repeating: "]", count: 60)) }
    }

    @Test func writerOutputIsValidJSONThatRoundTrips() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("text", "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é 😀")
        writer.key("list")
        writer.beginArray()
        writer.integer(1)
        writer.integer(UInt64.max)
        writer.bool(true)
        writer.null()
        writer.beginObject()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect(decoded["text"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é 😀")
        #expect((decoded["list"] as? [Any])?.count == 5)
        #expect(try JSONValue.parse(writer.bytes)["list"]?.arrayValue?[1] == .number("18446744073709551615"))
    }
}
