import Foundation
import SoukCore
import Testing

@Suite struct CommerceTokenTests {
    static func context(_ json: String, url: Bool = false, padded: Bool = true) -> String {
        var text = Data(json.utf8).base64EncodedString()
        if url { text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_") }
        if !padded { text = text.replacingOccurrences(of: "=", with: "") }
        return text
    }

    @Test func readsTheBearerHeaderFirst() {
        let query = ["access_token": "from-query", "ctx": Self.context(#"{"access_token": "from-ctx"}"#)]
        #expect(CommerceToken.find(authorization: "Bearer abc.def", query: query) == "abc.def")
        #expect(CommerceToken.find(authorization: "bearer abc", query: [:]) == "abc")
        #expect(CommerceToken.find(authorization: "BEARER   abc  ", query: [:]) == "abc")
    }

    @Test func fallsBackToTheAccessTokenParameter() {
        #expect(CommerceToken.find(authorization: nil, query: ["access_token": "q"]) == "q")
        // A header of another scheme (or an empty Bearer) carries no token for us.
        #expect(CommerceToken.find(authorization: "Basic dXNlcjpwYXNz", query: ["access_token": "q"]) == "q")
        #expect(CommerceToken.find(authorization: "Bearer ", query: ["access_token": "q"]) == "q")
        #expect(CommerceToken.find(authorization: "Bearer", query: ["access_token": "q"]) == "q")
    }

    @Test func readsZappsContextParameter() {
        let json = #"{"uuid": "d1", "access_token": "tok?en/with+chars>", "platform": "ios"}"#
        #expect(CommerceToken.find(authorization: nil, query: ["ctx": Self.context(json)]) == "tok?en/with+chars>")
        #expect(CommerceToken.find(authorization: nil, query: ["ctx": Self.context(json, url: true)]) == "tok?en/with+chars>")
        #expect(CommerceToken.find(authorization: nil, query: ["ctx": Self.context(json, url: true, padded: false)]) == "tok?en/with+chars>")
        #expect(CommerceToken.find(authorization: nil, query: ["access_token": "", "ctx": Self.context(json)]) == "tok?en/with+chars>")
    }

    @Test func takesAnIDTokenWhereAnAccessTokenWouldBe() {
        let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
        #expect(CommerceToken.find(authorization: nil, query: ["id_token": jwt]) == jwt)
        #expect(CommerceToken.find(authorization: nil, query: ["id_token": jwt, "access_token": "sat_a"]) == "sat_a")
        #expect(CommerceToken.find(authorization: nil, query: ["ctx": Self.context(#"{"id_token": "\#(jwt)"}"#)]) == jwt)
        #expect(CommerceToken.find(authorization: nil, query: ["ctx": Self.context(#"{"id_token": "j", "access_token": "a"}"#)]) == "a")
        #expect(CommerceToken.isJWT(jwt))
        #expect(!CommerceToken.isJWT("sat_abcdef"))
        #expect(!CommerceToken.isJWT("eyJa.b"))
        #expect(!CommerceToken.isJWT("abc.def.ghi"))
    }

    @Test(arguments: [
        [:],
        ["access_token": ""],
        ["ctx": "not base64!"],
        ["ctx": Data("not json".utf8).base64EncodedString()],
        ["ctx": Data(#"{"refresh_token": "x"}"#.utf8).base64EncodedString()],
        ["ctx": Data(#"{"access_token": 5}"#.utf8).base64EncodedString()],
        ["ctx": Data(#"{"access_token": ""}"#.utf8).base64EncodedString()],
        ["ctx": Data(#"["access_token"]"#.utf8).base64EncodedString()],
    ])
    func findsNothingWithoutAToken(_ query: [String: String]) {
        #expect(CommerceToken.find(authorization: nil, query: query) == nil)
    }
}
