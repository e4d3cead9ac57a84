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

    /// What the row holds, as a value.
    var value: AppOverride {
        AppOverride(restoreURL: restoreURL, updatesURL: updatesURL, pollingIntervalHours: pollingIntervalHours,
                    dynamicLicenseURL: dynamicLicenseURL, licenseRenewalURL: licenseRenewalURL, licenseResolutionURL: licenseResolutionURL,
                    signingCertificateURL: signingCertificateURL, encryptionCertificateURL: encryptionCertificateURL)
    }

    func set(_ value: AppOverride) {
        restoreURL = value.restoreURL
        updatesURL = value.updatesURL
        pollingIntervalHours = value.pollingIntervalHours
        dynamicLicenseURL = value.dynamicLicenseURL
        licenseRenewalURL = value.licenseRenewalURL
        licenseResolutionURL = value.licenseResolutionURL
        signingCertificateURL = value.signingCertificateURL
        encryptionCertificateURL = value.encryptionCertificateURL
    }
}

/// An app's differences from the marketplace configuration (`app_overrides`): a nil field keeps
/// the marketplace's value. Published in `overridesByAppleItemID` as a full copy.
public struct AppOverride: Sendable, Equatable {
    public var restoreURL: String?
    public var updatesURL: String?
    public var pollingIntervalHours: Int?
    public var dynamicLicenseURL: String?
    public var licenseRenewalURL: String?
    public var licenseResolutionURL: String?
    public var signingCertificateURL: String?
    public var encryptionCertificateURL: String?

    public init(restoreURL: String? = nil, updatesURL: String? = nil, pollingIntervalHours: Int? = nil, dynamicLicenseURL: String? = nil,
                licenseRenewalURL: String? = nil, licenseResolutionURL: String? = nil, signingCertificateURL: String? = nil,
                encryptionCertificateURL: String? = nil) {
        self.restoreURL = restoreURL
        self.updatesURL = updatesURL
        self.pollingIntervalHours = pollingIntervalHours
        self.dynamicLicenseURL = dynamicLicenseURL
        self.licenseRenewalURL = licenseRenewalURL
        self.licenseResolutionURL = licenseResolutionURL
        self.signingCertificateURL = signingCertificateURL
        self.encryptionCertificateURL = encryptionCertificateURL
    }

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

    /// The URLs, by their `.well-known` names.
    private var urls: [(field: String, value: String?)] {
        [("restore", restoreURL), ("updatesURL", updatesURL), ("dynamicLicenseURL", dynamicLicenseURL),
         ("licenseRenewalURL", licenseRenewalURL), ("licenseResolutionURL", licenseResolutionURL),
         ("signingCertificateURL", signingCertificateURL), ("encryptionCertificateURL", encryptionCertificateURL)]
    }

    /// The fields that are set, by their `.well-known` names, for an audit entry.
    public var auditFields: [String: String] {
        let fields = urls + [("pollingInterval", pollingIntervalHours.map(String.init))]
        return Dictionary(uniqueKeysWithValues: fields.compactMap { name, value in value.map { (name, $0) } })
    }

    /// The first set field a device could not use, by its `.well-known` name: a URL that is not
    /// an absolute http(s) URL with a host, or a polling interval under 24 hours (the OS polls at
    /// most daily). Nil when every set field is usable.
    public var problem: (field: String, message: String)? {
        for (field, value) in urls {
            guard let value else { continue }
            guard let url = URLComponents(string: value), let scheme = url.scheme?.lowercased(),
                  scheme == "https" || scheme == "http", url.host?.isEmpty == false else {
                return (field, "must be an absolute https:// URL, got '\(value)'")
            }
        }
        if let hours = pollingIntervalHours, hours < 24 {
            return ("pollingInterval", "is in hours and must be at least 24 (the OS polls at most daily)")
        }
        return nil
    }
}

extension CatalogStore {
    /// An app's override; empty when it has none. Throws `CatalogError.notFound` for no such app.
    public func appOverride(appleItemId: UInt64) async throws -> AppOverride {
        let app = try await app(appleItemId: appleItemId)
        return try await AppOverrideModel.query(on: database.db).filter(\.$app.$id == app.requireID()).first()?.value ?? AppOverride()
    }

    /// Writes an app's override, made when it has none yet.
    public func setOverride(_ value: AppOverride, appleItemId: UInt64) async throws {
        let app = try await app(appleItemId: appleItemId)
        let row = try await AppOverrideModel.query(on: database.db).filter(\.$app.$id == app.requireID()).first() ?? {
            let created = AppOverrideModel()
            created.$app.id = try app.requireID()
            return created
        }()
        row.set(value)
        try await row.save(on: database.db)
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
    public func overrides() async throws -> [UInt64: AppOverride] {
        let all = try await AppOverrideModel.query(on: database.db).with(\.$app).all()
        return Dictionary(all.map { ($0.app.appleItemId, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
