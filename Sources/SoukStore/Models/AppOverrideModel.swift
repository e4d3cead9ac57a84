import FluentKit
import Foundation
import SoukCore

/// Per-app differences from the marketplace configuration (`app_overrides`); unset fields keep
/// the marketplace's value. Published in `overridesByAppleItemID` as a full copy.
public final class AppOverrideModel: Model, @unchecked Sendable {
    public static let schema = "app_overrides"

    @ID(key: .id) public var id: UUID?
    @Parent(key: "app_id") public var app: AppModel
    @OptionalField(key: "restore_url") public var restoreURL: String?
    @OptionalField(key: "updates_url") public var updatesURL: String?
    @OptionalField(key: "polling_interval_hours") public var pollingIntervalHours: Int?
    @OptionalField(key: "dynamic_license_url") public var dynamicLicenseURL: String?
    @OptionalField(key: "license_renewal_url") public var licenseRenewalURL: String?
    @OptionalField(key: "license_resolution_url") public var licenseResolutionURL: String?
    @OptionalField(key: "signing_certificate_url") public var signingCertificateURL: String?
    @OptionalField(key: "encryption_certificate_url") public var encryptionCertificateURL: String?
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}

    /// The marketplace configuration with this override's differences.
    public func applied(to base: MarketplaceConfiguration) -> MarketplaceConfiguration {
        var license = base.license
        license.dynamicLicenseURL = dynamicLicenseURL ?? license.dynamicLicenseURL
        license.licenseRenewalURL = licenseRenewalURL ?? license.licenseRenewalURL
        license.licenseResolutionURL = licenseResolutionURL ?? license.licenseResolutionURL
        license.signingCertificateURL = signingCertificateURL ?? license.signingCertificateURL
        license.encryptionCertificateURL = encryptionCertificateURL ?? license.encryptionCertificateURL
        return MarketplaceConfiguration(restore: restoreURL ?? base.restore, updatesURL: updatesURL ?? base.updatesURL,
                                        pollingInterval: pollingIntervalHours ?? base.pollingInterval, license: license)
    }
}

extension CatalogStore {
    /// The override of an app, created empty when asked for one that does not exist yet.
    public func override(appleItemId: UInt64) async throws -> AppOverrideModel {
        let app = try await app(appleItemId: appleItemId)
        if let existing = try await AppOverrideModel.query(on: database.db).filter(\.$app.$id == app.requireID()).first() {
            return existing
        }
        let created = AppOverrideModel()
        created.$app.id = try app.requireID()
        return created
    }

    public func saveOverride(_ override: AppOverrideModel) async throws {
        try await override.save(on: database.db)
    }

    /// Removes an app's override; true when there was one.
    @discardableResult
    public func clearOverride(appleItemId: UInt64) async throws -> Bool {
        let app = try await app(appleItemId: appleItemId)
        let existing = try await AppOverrideModel.query(on: database.db).filter(\.$app.$id == app.requireID()).all()
        try await AppOverrideModel.query(on: database.db).filter(\.$app.$id == app.requireID()).delete()
        return !existing.isEmpty
    }

    /// Every override, keyed by the app's AppleItemID.
    public func overrides() async throws -> [UInt64: AppOverrideModel] {
        let all = try await AppOverrideModel.query(on: database.db).with(\.$app).all()
        return Dictionary(all.map { ($0.app.appleItemId, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
