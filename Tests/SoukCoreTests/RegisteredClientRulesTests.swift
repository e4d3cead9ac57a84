import SoukCore
import Testing

/// Which redirect URIs a registered client may have and match (RFC 6749 §3.1.2, RFC 8252 §7,
/// RFC 9700 §4.1.3), and the user codes of the device authorization grant (RFC 8628 §6.1).
@Suite struct RegisteredClientRulesTests {
    @Test func redirectURIsSuitTheirKind() {
        for uri in ["com.example.app:/cb", "https://app.example.com/cb", "http://127.0.0.1/cb", "http://127.0.0.1:8080/cb", "http://[::1]/cb"] {
            #expect(RedirectURIRule.problem(uri, kind: .native) == nil, "\(uri)")
        }
        for uri in ["http://localhost/cb", "http://app.example.com/cb", "myapp:/cb", "https://app.example.com/cb#x", "/relative", "",
                    "https:///nohost"] {
            #expect(RedirectURIRule.problem(uri, kind: .native) != nil, "\(uri)")
        }
        #expect(RedirectURIRule.problem("https://app.example.com/cb", kind: .web) == nil)
        for uri in ["com.example.app:/cb", "http://127.0.0.1/cb"] {
            #expect(RedirectURIRule.problem(uri, kind: .web) != nil, "\(uri)")
        }
        #expect(RedirectURIRule.problem("https://app.example.com/cb", kind: .tv) != nil)
    }

    @Test func redirectURIsMatchExactlyExceptALoopbackPort() {
        let native = RegisteredClient(clientId: "c", name: "n", kind: .native,
                                      redirectURIs: ["com.example.app:/cb", "http://127.0.0.1/cb", "https://app.example.com/cb"], app: nil)
        #expect(native.redirectURI(matching: "com.example.app:/cb") == "com.example.app:/cb")
        #expect(native.redirectURI(matching: "http://127.0.0.1:51004/cb") == "http://127.0.0.1:51004/cb")
        for presented in ["com.example.app:/cb/", "COM.EXAMPLE.APP:/cb", "http://127.0.0.1:51004/other", "https://app.example.com:444/cb",
                          "https://app.example.com/cb?x=1", "http://localhost:51004/cb"] {
            #expect(native.redirectURI(matching: presented) == nil, "\(presented)")
        }
        var web = native
        web.kind = .web
        #expect(web.redirectURI(matching: "http://127.0.0.1:51004/cb") == nil)
        #expect(RedirectURIRule.formActionSource("https://app.example.com:8443/cb") == "https://app.example.com:8443")
        #expect(RedirectURIRule.formActionSource("http://127.0.0.1:51004/cb") == "http://127.0.0.1:*")
        #expect(RedirectURIRule.formActionSource("com.example.app:/cb") == "com.example.app:")
    }

    @Test func userCodesAreEightConsonantsShownWithADash() {
        let codes = (0..<200).map { _ in UserCode.generate() }
        #expect(codes.allSatisfy { $0.count == 8 && $0.allSatisfy(UserCode.alphabet.contains) })
        #expect(Set(codes).count > 190)
        #expect(UserCode.alphabet.count == 20 && !UserCode.alphabet.contains { "AEIOUY".contains($0) })
        #expect(UserCode.display("BCDFGHJK") == "BCDF-GHJK")
        #expect(UserCode.normalize("bcdf-ghjk") == "BCDFGHJK")
        #expect(UserCode.normalize(" BCDF GHJK ") == "BCDFGHJK")
        #expect(UserCode.normalize("BCDF-GHJA") == nil)
        #expect(UserCode.normalize("BCDF-GHJ") == nil)
    }
}
