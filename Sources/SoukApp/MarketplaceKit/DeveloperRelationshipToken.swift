import Foundation
import JWTKit
import SoukStore

/// The developer relationship token of spec §8: an ES256 JWT signed with the marketplace's
/// alternative distribution key that a developer pastes into App Store Connect to let this
/// marketplace distribute their apps.
public struct DeveloperRelationshipClaims: JWTPayload, Equatable {
    public static let audience = "appstoreconnect-v1"
    /// App Store Connect refuses tokens that live 7 days or more.
    public static let lifetime: TimeInterval = 7 * 86_400 - 3600

    public var iss: String
    public var iat: Int64
    public var exp: Int64
    public var aud: String
    /// The developer's id.
    public var pid: String

    public init(marketplaceAppleItemId: UInt64, developerId: String, issuedAt: Date) {
        iss = String(marketplaceAppleItemId)
        iat = Int64(issuedAt.timeIntervalSince1970)
        exp = iat + Int64(Self.lifetime)
        aud = Self.audience
        pid = developerId
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard aud == Self.audience, exp - iat < 7 * 86_400, exp > Int64(Date().timeIntervalSince1970) else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "aud/exp")
        }
    }
}

extension SoukRuntime {
    /// Signs a developer relationship token for `developerId` with the marketplace's identity.
    public func developerRelationshipToken(developerId: String) async throws -> String {
        let marketplace = try await catalog.marketplaceIdentity(defaultKeyId: keys.installVerificationKeyId)
        guard marketplace.appleItemId != 0 else {
            throw CatalogError.invalid("the marketplace has no AppleItemID yet: souk marketplace set --apple-item-id N")
        }
        return try await installVerificationKeys.signWithMarketplaceKey(
            DeveloperRelationshipClaims(marketplaceAppleItemId: marketplace.appleItemId, developerId: developerId, issuedAt: Date()))
    }
}
