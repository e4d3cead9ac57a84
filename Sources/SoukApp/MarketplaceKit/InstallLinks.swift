import Foundation
import SoukCore
import SoukStore

/// Builds `marketplace-kit://install?…` links (spec §7) for a signed-in account: the package URL of
/// the app's newest version, a fresh install verification token, a single-use token-exchange grant
/// bound to the account (and the app, so the exchange records the install) and the account.
public struct InstallLinks: Sendable {
    package let catalog: CatalogStore
    package let keys: SoukKeys
    package let installVerificationKeys: InstallVerificationKeyring
    package let ledger: InstallLedger
    package let tokens: TokenStore
    /// The server's public address, which the package and app URLs start with.
    package let publicURL: String

    public init(runtime: SoukRuntime) {
        catalog = runtime.catalog
        keys = runtime.keys
        installVerificationKeys = runtime.installVerificationKeys
        ledger = InstallLedger(database: runtime.database)
        tokens = runtime.tokens
        publicURL = runtime.config.publicURL
    }

    public func make(appleItemId: UInt64, email: String, appleVersionId: UInt64? = nil) async throws -> InstallLink {
        let app = try await catalog.appRecord(appleItemId: appleItemId)
        guard app.availability == .available else {
            throw CatalogError.invalid("app \(appleItemId) is \(app.availability.summary)")
        }
        let versions = try await catalog.versions(of: app)
        guard let version = appleVersionId.map({ id in versions.first { $0.appleVersionId == id } }) ?? versions.first else {
            throw CatalogError.notFound(appleVersionId.map { "app \(appleItemId) has no version \($0)" }
                                        ?? "app \(appleItemId) has no imported version")
        }
        let account = try await catalog.people.requireAccount(email: email)
        let accountID = account.id
        guard !account.disabled else { throw CatalogError.invalid("account \(account.email) is disabled") }
        let marketplace = try await catalog.marketplaceIdentity(defaultKeyId: keys.installVerificationKeyId)
        guard marketplace.appleItemId != 0 else {
            throw CatalogError.invalid("the marketplace has no AppleItemID yet: souk marketplace set --apple-item-id N")
        }
        let token = try await installVerificationKeys.token(
            bundleId: app.bundleId,
            downloadType: try await ledger.downloadType(accountID: accountID, appleItemId: appleItemId),
            appleItemId: appleItemId, appleVersionId: version.appleVersionId, marketplace: marketplace.appleItemId)
        let base = publicURL
        return InstallLink(
            alternativeDistributionPackage: "\(base)/packages/\(appleItemId)/\(version.appleVersionId)/",
            installVerificationToken: token,
            token: try await tokens.issueInstallGrant(accountID: accountID, appleItemId: appleItemId),
            account: account.email,
            appShareURL: "\(base)/apps/\(appleItemId)")
    }
}
