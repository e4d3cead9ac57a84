import Foundation

/// An app with its versions (newest first), as `restore`, `updates` and licensing need them.
public struct CatalogApp: Sendable, Equatable {
    public var appleItemId: UInt64
    public var bundleId: String
    public var access: AccessPolicy
    public var availability: Availability
    /// The versions offered, newest first (`VersionChoice.newestFirst`).
    public var versions: [CatalogVersion]
    /// Versions withdrawn (App Store Connect's `AppVersionsUnavailable`, or `souk packages withdraw`),
    /// newest first: never offered, but still known, so a device on one gets a 404 failure for it and
    /// an update is never older than what it runs.
    public var withdrawnVersions: [CatalogVersion]
    /// What the app costs (free unless the operator set a price or a required entitlement).
    public var pricing: AppPricing

    public init(appleItemId: UInt64, bundleId: String, access: AccessPolicy, availability: Availability,
                versions: [CatalogVersion], withdrawnVersions: [CatalogVersion] = [], pricing: AppPricing = .free) {
        self.pricing = pricing
        self.appleItemId = appleItemId
        self.bundleId = bundleId
        self.access = access
        self.availability = availability
        self.versions = VersionChoice.newestFirst(versions)
        self.withdrawnVersions = VersionChoice.newestFirst(withdrawnVersions)
    }

    /// The one rule for "a person must be signed in": an available app whose access policy is
    /// `account`, or that is paid or included with a membership (only an account can have bought
    /// it); an app that is not available answers a failure to anyone, so it needs no sign-in.
    public var requiresAccount: Bool {
        availability == .available && (access == .account || !pricing.isFree)
    }
}
