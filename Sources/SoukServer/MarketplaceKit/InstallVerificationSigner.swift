import Foundation
import JWTKit
import SoukCore

/// Signs install verification tokens (ES256 JWS, header `kid`) with the marketplace's alternative
/// distribution key.
struct InstallVerificationSigner: Sendable {
    private let keys: JWTKeyCollection
    let kid: String

    init(keys: SoukKeys, kid: String) async throws {
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: try ES256PrivateKey(backing: keys.installVerificationKey), kid: JWKIdentifier(string: kid))
        self.keys = collection
        self.kid = kid
    }

    func sign(_ claims: InstallVerificationClaims) async throws -> String {
        try await keys.sign(claims, kid: JWKIdentifier(string: kid), header: ["typ": "JWT"])
    }
}

extension InstallVerificationClaims: JWTPayload {
    /// What a verifier checks besides the signature: the audience and the lifetime.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard aud == Self.audience else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "aud") }
        let now = Int64(Date().timeIntervalSince1970)
        guard iat <= now + 60, exp > now else { throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "exp") }
    }
}
