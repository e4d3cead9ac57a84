import Foundation

/// Why an app got no license. The device only sees the app in `unlicensedApps` (spec §3.1); the
/// reason goes to the server log.
public enum LicenseRefusal: String, Sendable, Equatable {
    case unknownApp = "unknown app"
    case unavailable = "app taken down or removed"
    case versionUnavailable = "version not offered"
    case assetNotInVersion = "asset is not part of the version"
    case accountRequired = "account required"
    case accountDisabled = "account disabled"
    case deviceLimit = "device limit reached"
    /// The app is paid, or included with a membership, and the account has neither (a `402`).
    case purchaseRequired = "purchase required"
    /// The membership that included the app lapsed (a `402`).
    case subscriptionExpired = "subscription expired"

    /// The payment verdict of a payment refusal; nil for the others.
    public var payment: PaymentVerdict? {
        switch self {
        case .purchaseRequired: .purchaseRequired
        case .subscriptionExpired: .subscriptionExpired
        default: nil
        }
    }

    public init(_ verdict: PaymentVerdict) {
        self = verdict == .subscriptionExpired ? .subscriptionExpired : .purchaseRequired
    }
}

/// What the store knows of the `assetPublicId` a license request names, for the version being
/// licensed. A key blob belongs to exactly one (app, version, asset).
public enum LicenseAssetMatch: Sendable, Equatable {
    /// The variant (or delta) of this version, with its `alternativeDistributionKeyBlob`.
    case keyBlob(String)
    /// A variant (or delta) of this version's package with no key blob recorded.
    case withoutKeyBlob
    /// Not part of this version: another version's, another app's, or nobody's.
    case notInVersion
}

/// The part of the license policy (spec §3.1) decided before anything is written: which version of
/// an app a request gets a license for, or why it gets none. The device limit is decided by the
/// store in the same statement that issues the license, so racing requests cannot exceed it.
public enum LicenseEligibility {
    /// Who asks: nobody signed in, or an account that is active or disabled.
    public enum Asker: Sendable, Equatable {
        case anonymous
        case account(disabled: Bool)
    }

    public enum Verdict: Sendable, Equatable {
        case eligible(CatalogVersion)
        case refused(LicenseRefusal)
    }

    /// The version to license for `app` (the requested one, else the newest offered), or why not.
    public static func decide(app: CatalogApp?, requestedVersion: UInt64?, asker: Asker) -> Verdict {
        guard let app else { return .refused(.unknownApp) }
        guard app.availability == .available else { return .refused(.unavailable) }
        let version: CatalogVersion?
        if let requestedVersion {
            version = app.versions.first { $0.appleVersionId == requestedVersion }
        } else {
            version = app.versions.first
        }
        guard let version else { return .refused(.versionUnavailable) }
        switch asker {
        case .anonymous where app.access == .account: return .refused(.accountRequired)
        case .account(disabled: true): return .refused(.accountDisabled)
        default: return .eligible(version)
        }
    }

    /// The key blob to hand to the issuer for a request that named `asset` (nil: none named), or
    /// a refusal when the asset is not part of the version being licensed.
    public static func keyBlob(asset: String?, match: LicenseAssetMatch?) -> Result<String?, LicenseRefusalError> {
        guard asset != nil, let match else { return .success(nil) }
        switch match {
        case .keyBlob(let blob): return .success(blob)
        case .withoutKeyBlob: return .success(nil)
        case .notInVersion: return .failure(LicenseRefusalError(refusal: .assetNotInVersion))
        }
    }
}

/// A refusal as an `Error`, for `Result`.
public struct LicenseRefusalError: Error, Sendable, Equatable {
    public var refusal: LicenseRefusal

    public init(refusal: LicenseRefusal) {
        self.refusal = refusal
    }
}
