import Foundation
import SoukCore
import Testing

@Suite struct PKCETests {
    // RFC 7636 Appendix B.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test func matchesTheRFC7636TestVector() {
        #expect(PKCE.challenge(for: Self.verifier, method: .s256) == Self.challenge)
        #expect(PKCE.verify(verifier: Self.verifier, challenge: Self.challenge, method: .s256))
    }

    @Test func refusesAWrongOrMalformedVerifier() {
        #expect(!PKCE.verify(verifier: Self.verifier.replacingOccurrences(of: "d", with: "e"), challenge: Self.challenge, method: .s256))
        #expect(!PKCE.verify(verifier: "short", challenge: "short", method: .plain))
        #expect(!PKCE.verify(verifier: Self.challenge, challenge: Self.challenge, method: .s256))
    }

    @Test func plainComparesTheVerifierItself() {
        #expect(PKCE.verify(verifier: Self.verifier, challenge: Self.verifier, method: .plain))
    }

    @Test func wellFormedMeans43To128UnreservedCharacters() {
        #expect(PKCE.isWellFormed(String(repeating: "a", count: 43)))
        #expect(PKCE.isWellFormed(String(repeating: "~", count: 128)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 129)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42) + "+"))
    }

    @Test func opaqueTokensAreRandomPrefixedAndHashed() {
        let first = OpaqueToken.generate(.accessToken)
        let second = OpaqueToken.generate(.accessToken)
        #expect(first != second)
        #expect(first.hasPrefix("sat_"))
        #expect(first.count == 4 + 43)  // 256 bits in base64url
        #expect(OpaqueToken.hash(first).count == 64)
        #expect(OpaqueToken.hash(first) != OpaqueToken.hash(second))
    }
}
