import Foundation
import SoukCore
import Testing

@Suite struct IDTokenClaimsTests {
    static let account = UUID(uuidString: "6F1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8")!
    static let issued = Date(timeIntervalSince1970: 1_800_000_000)

    static func claims(issuer: String = "https://souk.test", lifetime: TimeInterval = 3600) -> IDTokenClaims {
        IDTokenClaims(issuer: issuer, accountID: account, clientId: "tv", issuedAt: issued, lifetime: lifetime,
                      authTime: issued.addingTimeInterval(-30), nonce: "n", accessToken: nil, email: nil)
    }

    @Test func atHashIsTheLeftHalfOfSHA256() {
        // OpenID Connect Core 1.0, Appendix A.4's example.
        #expect(IDTokenClaims.atHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
    }

    @Test func livesAnHourAtMostAndNamesTheAccount() {
        #expect(Self.claims().exp - Self.claims().iat == 3600)
        #expect(Self.claims(lifetime: 86_400).exp - Self.claims().iat == 3600)
        #expect(Self.claims(lifetime: 600).exp - Self.claims().iat == 600)
        #expect(Self.claims().sub == "6f1a2b3c-4d5e-4f60-8172-93a4b5c6d7e8")
        #expect(Self.claims().accountID == Self.account)
        #expect(Self.claims().authTime == 1_799_999_970)
        #expect(Self.claims().emailVerified == nil)
    }

    @Test func refusesAnotherIssuerAnExpiredOrFutureTokenAndABadSubject() {
        let claims = Self.claims()
        #expect(claims.refusal(issuer: "https://souk.test", now: Self.issued) == nil)
        #expect(claims.refusal(issuer: "https://souk.test", now: Self.issued.addingTimeInterval(3599)) == nil)
        #expect(claims.refusal(issuer: "https://souk.test", now: Self.issued.addingTimeInterval(3600)) == "exp")
        #expect(claims.refusal(issuer: "https://other.test", now: Self.issued) == "iss")
        #expect(claims.refusal(issuer: "https://souk.test", now: Self.issued.addingTimeInterval(-61)) == "iat")
        var longLived = claims
        longLived.exp += 1
        #expect(longLived.refusal(issuer: "https://souk.test", now: Self.issued) == "iat")
        var numbered = claims
        numbered.sub = "42"
        #expect(numbered.refusal(issuer: "https://souk.test", now: Self.issued) == "sub")
    }
}
