import Foundation
import SoukCore
import SoukStore

/// Makes a new install verification key that signs from now on, for the marketplace or (web
/// distribution) one app, on the marketplace's operator side only (operator staff, the CLI, the
/// system): the console's integrations page and `souk keys rotate` both call it. The previous key
/// stays published until the tokens it signed have expired (docs/marketplacekit.md). Writes one
/// audit entry, `key.rotate`, with the key ids before and after.
package struct RotateInstallVerificationKey: Sendable {
    package let keys: InstallVerificationKeyring
    package let database: SoukDatabase

    package init(runtime: SoukRuntime) {
        keys = runtime.installVerificationKeys
        database = runtime.database
    }

    /// `owner` is an app's AppleItemID, or `InstallVerificationKeyRecord.marketplaceOwner`; `kid`
    /// the key id App Store Connect gave the key (nil: derived from the key).
    package func callAsFunction(actor: SoukActor, owner: UInt64 = InstallVerificationKeyRecord.marketplaceOwner,
                                kid: String? = nil) async throws -> InstallVerificationKeyRecord {
        guard actor.isMarketplaceOperator else {
            throw DeveloperOperationError.notAllowed("Only the marketplace's operators rotate install verification keys.")
        }
        if owner != InstallVerificationKeyRecord.marketplaceOwner {
            guard try await CatalogStore(database: database).hasApp(appleItemId: owner) else {
                throw DeveloperOperationError.notFound("No app has AppleItemID \(owner).")
            }
        }
        let before = try await keys.activeKeys()[owner]?.kid
        let record = try await keys.rotate(owner: owner, kid: kid)
        try await AuditLog(database: database).record(
            actor: actor, action: .keyRotate, target: Self.target(owner), before: ["kid": before ?? ""], after: ["kid": record.kid])
        return record
    }

    /// The audit target: `key:marketplace`, or `key:app:<AppleItemID>`.
    static func target(_ owner: UInt64) -> String {
        owner == InstallVerificationKeyRecord.marketplaceOwner ? "key:marketplace" : "key:app:\(owner)"
    }
}
