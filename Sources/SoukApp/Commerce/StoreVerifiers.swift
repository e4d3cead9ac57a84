import Foundation
import SoukCore
import SoukIntegrations

/// The `StoreVerifier` of each store Souk verifies purchases with: Apple (signed data checked
/// against Apple Root CA - G3 plus `appleRootCertificates`, and the App Store Server API with the
/// app's In-App Purchase key), Google Play, Amazon RVS and Roku Pay, each reading the app's
/// `stores` settings per claim.
public struct StoreVerifiers: Sendable {
    package let verifiers: [CommerceStore: any StoreVerifier]

    public init(_ verifiers: [any StoreVerifier]) {
        var byStore: [CommerceStore: any StoreVerifier] = [:]
        for verifier in verifiers { byStore[verifier.store] = verifier }
        self.verifiers = byStore
    }

    /// The verifiers the settings describe; `settings` gives each app's store settings (the catalogs').
    /// - Throws: `StartupError` naming the setting when an extra Apple root cannot be read.
    public static func configured(_ config: SoukConfig, settings: @escaping StoreSettingsProvider) throws -> StoreVerifiers {
        let signed: AppleSignedDataVerifier
        do {
            signed = try AppleSignedDataVerifier(additionalRootCertificatePaths: config.commerce.appleRootCertificates)
        } catch {
            throw StartupError("cannot load appleRootCertificates (SOUK_APPLE_ROOT_CERTIFICATES) \(config.commerce.appleRootCertificates): \(error)")
        }
        let endpoints = config.commerce.stores
        return StoreVerifiers([
            AppleStoreVerifier(verifier: signed, settings: settings, api: AppStoreServerAPIClient(endpoints: endpoints)),
            GooglePlayStoreVerifier(settings: settings, endpoints: endpoints),
            AmazonStoreVerifier(settings: settings, endpoints: endpoints),
            RokuStoreVerifier(settings: settings, endpoints: endpoints),
        ])
    }

    public func verifier(for store: CommerceStore) -> (any StoreVerifier)? {
        verifiers[store]
    }

    /// What asking a store came to.
    package enum Answer: Sendable {
        case verdict(StoreVerdict)
        /// No verdict: the store did not answer in time, was down, refused the operator's
        /// credentials, or holds the purchase as pending. Never a refusal.
        case fault(StoreFault)
    }

    /// The store's verdict on `claim` if it gave one within `timeout`; else why not.
    package static func answer(_ verifier: any StoreVerifier, on claim: PurchaseClaim, within timeout: Duration) async -> Answer {
        await withTaskGroup(of: Answer.self) { group in
            group.addTask {
                do {
                    return .verdict(try await verifier.verify(claim))
                } catch let fault as StoreFault {
                    return .fault(fault)
                } catch {
                    return .fault(StoreFault(.unavailable, "\(verifier.store.rawValue) could not be asked: \(String(describing: type(of: error)))"))
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .fault(StoreFault(.unavailable, "\(verifier.store.rawValue) did not answer within \(timeout)"))
            }
            let first = await group.next() ?? .fault(StoreFault(.unavailable, "no answer"))
            group.cancelAll()
            return first
        }
    }
}

extension PurchaseRefusal {
    /// No verifier is configured for the purchase's store.
    package static func storeNotConfigured(_ store: CommerceStore) -> PurchaseRefusal {
        .init("store-not-configured", "Souk has no \(store.rawValue) verifier.")
    }

    /// `data.username` names another account than the token's.
    package static func wrongAccount(_ detail: String) -> PurchaseRefusal { .init("wrong-account", detail) }

    /// The CloudEvent id was already used by another account.
    package static func duplicateEvent(_ detail: String) -> PurchaseRefusal { .init("duplicate-event", detail) }
}
