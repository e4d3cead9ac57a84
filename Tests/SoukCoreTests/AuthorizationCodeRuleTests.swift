import Foundation
import SoukCore
import Testing

@Suite struct AuthorizationCodeRuleTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issued = IssuedAuthorizationCode(clientId: "device-1", redirectURI: "app-distribution-oauth://", codeChallenge: challenge,
                                                codeChallengeMethod: "S256", expiresAt: now.addingTimeInterval(60))

    static func request(verifier: String? = verifier, redirect: String? = nil, client: String = "device-1") -> Result<AuthorizationCodeRequest, OAuthError> {
        AuthorizationCodeRequest.parse(code: "sac_x", clientId: client, codeVerifier: verifier, redirectURI: redirect)
    }

    @Test func aRequestWithoutAUsableVerifierOrCodeIsRefusedBeforeAnyCodeIsClaimed() {
        #expect(Self.request(verifier: nil) == .failure(OAuthError(.invalidRequest, "code_verifier is required.")))
        for bad in ["", "short", String(repeating: "a", count: 129), String(repeating: "é", count: 43)] {
            guard case .failure(let error) = Self.request(verifier: bad) else { Issue.record("accepted \(bad)"); continue }
            #expect(error.code == .invalidRequest)
        }
        guard case .failure(let error) = AuthorizationCodeRequest.parse(code: nil, clientId: "d", codeVerifier: Self.verifier, redirectURI: nil) else {
            Issue.record("a request without a code was accepted")
            return
        }
        #expect(error == OAuthError(.invalidRequest, "code is required."))
    }

    @Test func theClaimedCodeDecidesClientRedirectVerifierAndLifetime() throws {
        let good = try Self.request().get()
        #expect(AuthorizationCodeRule.refusal(for: good, code: Self.issued, now: Self.now) == nil)
        #expect(AuthorizationCodeRule.refusal(for: try Self.request(redirect: "app-distribution-oauth://").get(), code: Self.issued, now: Self.now) == nil)
        func refusal(_ request: AuthorizationCodeRequest, now: Date = Self.now) -> OAuthError.Code? {
            AuthorizationCodeRule.refusal(for: request, code: Self.issued, now: now)?.code
        }
        #expect(refusal(try Self.request(client: "device-2").get()) == .invalidGrant)
        #expect(refusal(try Self.request(redirect: "https://evil.example/").get()) == .invalidGrant)
        #expect(refusal(try Self.request(verifier: String(repeating: "a", count: 43)).get()) == .invalidGrant)
        #expect(refusal(good, now: Self.now.addingTimeInterval(60)) == .invalidGrant)
        var plain = Self.issued
        plain.codeChallengeMethod = "plain"
        plain.codeChallenge = Self.verifier
        #expect(AuthorizationCodeRule.refusal(for: good, code: plain, now: Self.now) == nil)
    }
}
