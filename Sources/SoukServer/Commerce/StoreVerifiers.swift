import Foundation
import SoukCore
import SoukIntegrations

/// The `StoreVerifier` of each store Souk can verify purchases with. Apple's is local (signed data
/// checked against Apple Root CA - G3 plus `appleRootCertificates`); the other stores are not
/// configured yet, so their purchases are refused `store-not-configured` (422).
public struct StoreVerifiers: Sendable {
    let verifiers: [CommerceStore: any StoreVerifier]

    public init(_ verifiers: [any StoreVerifier]) {
        var byStore: [CommerceStore: any StoreVerifier] = [:]
        for verifier in verifiers { byStore[verifier.store] = verifier }
        self.verifiers = byStore
    }

    /// The verifiers the settings describe.
    /// - Throws: `StartupError` naming the setting when an extra Apple root cannot be read.
    public static func configured(_ config: SoukConfig) throws -> StoreVerifiers {
        do {
            return StoreVerifiers([try AppleStoreVerifier(additionalRootCertificatePaths: config.commerce.appleRootCertificates)])
        } catch {
            throw StartupError("cannot load appleRootCertificates (SOUK_APPLE_ROOT_CERTIFICATES) \(config.commerce.appleRootCertificates): \(error)")
        }
    }

    public func verifier(for store: CommerceStore) -> (any StoreVerifier)? {
        verifiers[store]
    }

    /// The verdict on `claim` if the store gave one within `timeout`; nil when it did not answer in
    /// time or could not answer (threw): an outage is never a verdict.
    static func verdict(_ verifier: any StoreVerifier, on claim: PurchaseClaim, within timeout: Duration) async -> StoreVerdict? {
        await withTaskGroup(of: StoreVerdict?.self) { group in
            group.addTask { try? await verifier.verify(claim) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension PurchaseRefusal {
    /// No verifier is configured for the purchase's store.
    static func storeNotConfigured(_ store: CommerceStore) -> PurchaseRefusal {
        .init("store-not-configured", "Souk cannot verify \(store.rawValue) purchases yet; only apple_store is configured.")
    }

    /// `data.username` names another account than the token's.
    static func wrongAccount(_ detail: String) -> PurchaseRefusal { .init("wrong-account", detail) }

    /// The CloudEvent id was already used by another account.
    static func duplicateEvent(_ detail: String) -> PurchaseRefusal { .init("duplicate-event", detail) }
}
