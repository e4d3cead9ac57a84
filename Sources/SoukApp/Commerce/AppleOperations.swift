import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// The operator's App Store actions (docs/stores.md): extending renewal dates (one customer's
/// subscriptions, or every eligible subscriber of a product) and looking up an order id from a
/// customer's App Store receipt. Each call takes the actor it acts for and writes its own audit entry.
public struct AppleOperations: Sendable {
    package let purchases: PurchaseStore
    package let catalogs: CommerceCatalogCache
    package let settings: StoreSettingsProvider
    package let api: AppStoreServerAPIClient
    package let verifier: AppleStoreVerifier?
    package let extensions: AppleRenewalExtensionStore
    package let audit: AuditLog
    /// How long the worker waits between two looks at a mass extension's status.
    package let massPollInterval: TimeInterval
    package let retry: StoreRetryPolicy
    package let now: @Sendable () -> Date

    public init(purchases: PurchaseStore, catalogs: CommerceCatalogCache, settings: @escaping StoreSettingsProvider, api: AppStoreServerAPIClient,
                verifier: AppleStoreVerifier?, extensions: AppleRenewalExtensionStore, audit: AuditLog, massPollInterval: TimeInterval = 60,
                retry: StoreRetryPolicy, now: @escaping @Sendable () -> Date = { Date() }) {
        self.purchases = purchases
        self.catalogs = catalogs
        self.settings = settings
        self.api = api
        self.verifier = verifier
        self.extensions = extensions
        self.audit = audit
        self.massPollInterval = massPollInterval
        self.retry = retry
        self.now = now
    }

    /// Why an operation could not start.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The app's In-App Purchase key and bundle id.
    package func credentials(app: String) async throws -> (AppStoreServerAPIClient.Credentials, String) {
        let apple = try await settings(app)?.apple
        guard let credentials = try AppStoreServerAPIClient.Credentials.configured(in: apple, app: app) else {
            throw Refusal("app \(app) has no In-App Purchase key (souk stores set --app \(app) --store apple_store keyId=… issuerId=… privateKeyPath=…)")
        }
        return (credentials, apple?.bundleId ?? app)
    }

    /// Checks `days` and `reason` as Apple does (1…90 days, reason 0…3).
    package static func check(days: Int, reason: Int) throws -> AppleExtendReasonCode {
        guard (1...AppleExtendRenewalDateRequest.maxDays).contains(days) else {
            throw Refusal("--days must be 1 to \(AppleExtendRenewalDateRequest.maxDays) (Apple's limit per extension)")
        }
        guard let code = AppleExtendReasonCode(rawValue: reason) else {
            throw Refusal("--reason must be 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service issue or outage)")
        }
        return code
    }

    package static func requestIdentifier() -> String { UUID().uuidString.lowercased() }
}

extension SoukRuntime {
    /// The operator's App Store actions with `verifiers` (the server's or a command's).
    public func appleOperations(verifiers: StoreVerifiers, now: @escaping @Sendable () -> Date = { Date() }) -> AppleOperations {
        StoreOperations(runtime: self, verifiers: verifiers, now: now).apple(verifiers: verifiers)
    }
}
