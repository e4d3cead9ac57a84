import Foundation

/// What one person may do with one app right now, as the marketplace app's Install button shows it
/// (docs/api.md, "What this person may do"): a rule as a value, decided once per app from what the
/// caller gathered for the whole page (payment verdicts, the install ledger, the device).
public struct AppAction: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case install, update, open, buy, subscribe, unavailable
    }

    /// Why, as a stable code: the `402` problem's type for `buy` and `subscribe`
    /// (`purchase-required`, `subscription-expired`), the reason for `unavailable`.
    public enum Reason: String, Sendable {
        case purchaseRequired = "purchase-required"
        case subscriptionExpired = "subscription-expired"
        /// No version is offered yet (or every one was withdrawn).
        case noVersion = "no-version"
        /// No offered version runs on the device the request named.
        case incompatibleDevice = "incompatible-device"
        /// It must be paid for, and this marketplace takes no payments (`paymentProcessor` `none`).
        case notForSale = "not-for-sale"
    }

    public var kind: Kind
    public var why: Reason?

    public init(_ kind: Kind, why: Reason? = nil) {
        self.kind = kind
        self.why = why
    }

    /// What the device knows and says about itself; all optional.
    public struct Device: Sendable, Equatable {
        public var platform: Platform?
        public var osVersion: OSVersion?
        /// The app is recorded as installed on this device (the install ledger, by the token's client).
        public var installed: Bool
        /// The version the device runs, when it said so.
        public var installedVersionId: UInt64?

        public init(platform: Platform? = nil, osVersion: OSVersion? = nil, installed: Bool = false, installedVersionId: UInt64? = nil) {
            self.platform = platform
            self.osVersion = osVersion
            self.installed = installed
            self.installedVersionId = installedVersionId
        }
    }

    /// The action for `app`: availability first, then the device, then payment (nothing is sold
    /// that cannot run), then what is installed. `sells`: this marketplace can take the payment.
    public static func decide(_ app: CatalogApp, verdict: PaymentVerdict, sells: Bool, device: Device) -> AppAction {
        guard app.availability == .available, !app.versions.isEmpty else { return AppAction(.unavailable, why: .noVersion) }
        if let platform = device.platform, let osVersion = device.osVersion,
           !app.versions.contains(where: { VersionChoice.isCompatible($0, platform: platform, osVersion: osVersion) }) {
            return AppAction(.unavailable, why: .incompatibleDevice)
        }
        if verdict != .open {
            guard sells else { return AppAction(.unavailable, why: .notForSale) }
            let why: Reason = verdict == .subscriptionExpired ? .subscriptionExpired : .purchaseRequired
            return AppAction(app.pricing.prices.isEmpty ? .subscribe : .buy, why: why)
        }
        if let installed = device.installedVersionId {
            guard let platform = device.platform, let osVersion = device.osVersion else {
                return AppAction(app.versions.first?.appleVersionId == installed ? .open : .update)
            }
            let choice = VersionChoice.update(app.versions, withdrawn: app.withdrawnVersions, installed: installed,
                                              platform: platform, osVersion: osVersion)
            if case .newer = choice { return AppAction(.update) }
            return AppAction(.open)
        }
        return AppAction(device.installed ? .open : .install)
    }
}
