import Foundation
import SoukCore
import SoukStore

/// The marketplace's own settings and storefront choices, which only its operator side changes
/// (operator staff, the CLI, the system): the home page's featured apps, an app's price and its
/// MarketplaceKit endpoints, the marketplace's identity, an app's own signing key, a package's
/// license key blob, licenses revoked, hosted in-app content. `souk apps feature|price|override`,
/// `souk marketplace set`, `souk keys retire`, `souk packages set-key-blob`, `souk licenses
/// revoke` and `souk content import` call them. Each writes one audit entry when something
/// changed; the stores' own errors (`CatalogError`, `PackageError`) pass through unchanged.
package struct MarketplaceOperations: Sendable {
    package let database: SoukDatabase
    package let blobs: BlobStore
    package let keys: SoukKeys
    package let installVerificationKeys: InstallVerificationKeyring
    package let commerceCatalogs: CommerceCatalogCache
    package let workDir: String

    package init(runtime: SoukRuntime) {
        database = runtime.database
        blobs = runtime.blobs
        keys = runtime.keys
        installVerificationKeys = runtime.installVerificationKeys
        commerceCatalogs = runtime.commerceCatalogs
        workDir = runtime.config.workDir
    }

    private var catalog: CatalogStore { CatalogStore(database: database) }
    private var audit: AuditLog { AuditLog(database: database) }

    private func requireOperator(_ actor: SoukActor, _ what: String) throws {
        guard actor.isMarketplaceOperator else { throw DeveloperOperationError.notAllowed("Only the marketplace's operators \(what).") }
    }

    /// Features an app on the home page at `order` (lowest first), or stops featuring it (`nil`).
    /// Audited as `app.feature` with the order before and after.
    package func setFeatured(actor: SoukActor, appleItemId: UInt64, order: Int?) async throws {
        try requireOperator(actor, "choose the featured apps")
        let before = try await catalog.appRecord(appleItemId: appleItemId).featuredOrder
        try await catalog.setFeatured(appleItemId: appleItemId, order: order)
        guard before != order else { return }
        try await audit.record(actor: actor, action: .appFeature, target: "app:\(appleItemId)",
                               before: ["featured_order": before.map(String.init) ?? ""], after: ["featured_order": order.map(String.init) ?? ""])
    }

    /// Sets an app's prices (`nil`: kept; empty: free) and the marketplace entitlement that includes
    /// it (`.some(nil)`: none; `nil`: kept). An entitlement must be one of the marketplace catalog's
    /// (docs/selling.md). Audited as `app.price` when the price summary changed.
    package func setPricing(actor: SoukActor, appleItemId: UInt64, prices: [Price]?, requiresEntitlement: String??) async throws -> AppRecord {
        try requireOperator(actor, "set an app's price")
        if case .some(.some(let entitlement)) = requiresEntitlement {
            let marketplace = try await commerceCatalogs.state(app: AppPricing.marketplaceApp)
            guard let marketplace, marketplace.catalog.entitlements.contains(where: { $0.id == entitlement }) else {
                throw DeveloperOperationError.invalid(
                    field: "requiresEntitlement",
                    "\(entitlement) is not an entitlement of the marketplace's catalog; apply one with \"app\": \"marketplace\" first (docs/selling.md).")
            }
        }
        let before = try await catalog.appRecord(appleItemId: appleItemId).pricing.summary
        let app = try await catalog.setPricing(appleItemId: appleItemId, prices: prices, requiresEntitlement: requiresEntitlement)
        if before != app.pricing.summary {
            try await audit.record(actor: actor, action: .appPrice, target: "app:\(appleItemId)",
                                   before: ["price": before], after: ["price": app.pricing.summary])
        }
        return app
    }

    /// Changes the marketplace's name, AppleItemID and the key id App Store Connect gave its
    /// signing key (nil: kept). A key id another key has, or a name of only spaces, is refused
    /// before anything changes. Audited as `marketplace.set` with all three before and after, when
    /// any of them changed.
    package func setIdentity(actor: SoukActor, name: String?, appleItemId: UInt64?, keyId: String?) async throws -> MarketplaceIdentity {
        try requireOperator(actor, "change the marketplace's identity")
        let name = name?.trimmingCharacters(in: .whitespaces)
        if let name, name.isEmpty || name.count > 200 {
            throw DeveloperOperationError.invalid(field: "name", "A marketplace's name has 1–200 characters.")
        }
        let marketplaceOwner = InstallVerificationKeyRecord.marketplaceOwner
        let current = try await catalog.marketplaceIdentity(defaultKeyId: keys.installVerificationKeyId)
        let before = ["name": current.name, "apple_item_id": String(current.appleItemId),
                      "key_id": try await installVerificationKeys.activeKeys()[marketplaceOwner]?.kid ?? ""]
        if let keyId {
            // The key id names the current signing key: both change together. First, because it is
            // the step that refuses (a malformed or taken key id).
            try await installVerificationKeys.store.rename(owner: marketplaceOwner, to: keyId)
        }
        let marketplace = try await catalog.setMarketplace(name: name, appleItemId: appleItemId, defaultKeyId: keys.installVerificationKeyId)
        let after = ["name": marketplace.name, "apple_item_id": String(marketplace.appleItemId), "key_id": keyId ?? before["key_id"] ?? ""]
        if after != before {
            try await audit.record(actor: actor, action: .marketplaceSet, target: "marketplace", before: before, after: after)
        }
        return marketplace
    }

    /// Ends web distribution for an app: its tokens are signed by the marketplace's key again
    /// (docs/marketplacekit.md). Audited as `key.retire`.
    package func retireAppKey(actor: SoukActor, appleItemId: UInt64) async throws {
        try requireOperator(actor, "retire an app's signing key")
        try await installVerificationKeys.store.retire(owner: appleItemId)
        try await audit.record(actor: actor, action: .keyRetire, target: "key:app:\(appleItemId)")
    }

    /// Imports a hosted content package for one product of `app`'s in-app catalog. Audited as
    /// `content.import` with the product, version, size and digest; a repeat of the same bytes
    /// changes nothing and writes no entry.
    package func importContent(actor: SoukActor, at path: String, app: String) async throws -> HostedContentStore.Outcome {
        try requireOperator(actor, "import hosted content")
        let outcome = try await HostedContentStore(database: database, blobs: blobs, workArea: workDir).importPackage(at: path, app: app)
        if case .imported(let content) = outcome {
            try await audit.record(actor: actor, action: .contentImport, target: "catalog:\(content.app)",
                                   after: ["product": content.productId, "version": "\(content.contentVersion)",
                                           "bytes": String(content.size), "sha256": content.sha256])
        }
        return outcome
    }

    /// Gives an app its own endpoints in `/.well-known/marketplace-kit` (nil: the app follows the
    /// marketplace's again). A field a device could not use (`AppOverride.problem`) is refused by
    /// its `.well-known` name. Audited as `app.override` with the fields set before and after.
    /// Returns whether anything changed.
    @discardableResult
    package func setOverride(actor: SoukActor, appleItemId: UInt64, _ override: AppOverride?) async throws -> Bool {
        try requireOperator(actor, "set an app's MarketplaceKit endpoints")
        if let problem = override?.problem { throw DeveloperOperationError.invalid(field: problem.field, problem.message) }
        let before = try await catalog.appOverride(appleItemId: appleItemId)
        let after = override ?? AppOverride()
        guard before != after else { return false }
        if override == nil {
            try await catalog.clearOverride(appleItemId: appleItemId)
        } else {
            try await catalog.setOverride(after, appleItemId: appleItemId)
        }
        try await audit.record(actor: actor, action: .appOverride, target: "app:\(appleItemId)", before: before.auditFields, after: after.auditFields)
        return true
    }

    /// Records one package variant's license key blob (App Store Connect's
    /// `alternativeDistributionKeyBlob`) by hand, as the webhook does itself. Audited as
    /// `package.key-blob` with the variant, never the blob.
    package func setKeyBlob(actor: SoukActor, appleItemId: UInt64, appleVersionId: UInt64, assetPublicId: String, keyBlob: String) async throws {
        try requireOperator(actor, "record a package's key blob")
        guard !assetPublicId.isEmpty, assetPublicId.count <= 200 else {
            throw DeveloperOperationError.invalid(field: "assetPublicId", "An assetPublicId has 1–200 characters.")
        }
        guard Data(base64Encoded: keyBlob) != nil else { throw DeveloperOperationError.invalid(field: "keyBlob", "A key blob is base64.") }
        _ = try await catalog.appRecord(appleItemId: appleItemId)
        try await LicenseStore(database: database).setKeyBlob(assetPublicId: assetPublicId, appleItemId: appleItemId,
                                                              appleVersionId: appleVersionId, keyBlob: keyBlob)
        try await audit.record(actor: actor, action: .packageKeyBlob, target: "app:\(appleItemId)",
                               after: ["version": String(appleVersionId), "asset_public_id": assetPublicId])
    }

    /// Revokes the live licenses `selection` names (an account's, an app's, a device's, one);
    /// devices meet the reason on the license resolution page. Audited as `license.revoke` with
    /// the selection and the count, when any was revoked. Returns how many.
    package func revokeLicenses(actor: SoukActor, _ selection: LicenseStore.Selection, reason: String) async throws -> Int {
        try requireOperator(actor, "revoke licenses")
        let count = try await LicenseStore(database: database).revoke(selection, reason: reason)
        guard count > 0 else { return 0 }
        var fields = ["count": String(count), "reason": reason]
        fields["account"] = selection.accountID?.uuidString.lowercased()
        fields["app"] = selection.appleItemId.map(String.init)
        fields["device"] = selection.deviceId
        fields["license"] = selection.licenseId.map(String.init)
        let target = selection.accountID.map { "account:" + $0.uuidString.lowercased() }
            ?? selection.appleItemId.map { "app:\($0)" } ?? "licenses"
        try await audit.record(actor: actor, action: .licenseRevoke, target: target, after: fields)
        return count
    }
}
