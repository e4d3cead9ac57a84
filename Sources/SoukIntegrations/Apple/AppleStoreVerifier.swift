import Foundation
import SoukCore

/// The App Store's `StoreVerifier`. A claim's `receipt` is the StoreKit 2 signed transaction (JWS),
/// verified locally by `AppleSignedDataVerifier` for the app (its configured `bundleId`, else
/// `claim.app`), or a StoreKit 1 app receipt (base64 PKCS#7), verified and looked up by the
/// transaction ids it holds (`AppleStoreVerifier+AppReceipt`). Both Production and Sandbox are verified (the intake rule decides which
/// environment an account may use); `Xcode` / `LocalTesting` data never is. The `VerifiedPurchase`
/// is built from signed data only, never from the unsigned claim.
///
/// With the app's In-App Purchase key configured, the App Store Server API adds what a JWS alone
/// cannot say: an auto-renewable subscription's renewal state (enrichment, optional: when it
/// faults, the intake is answered from the JWS with a lifecycle read from its dates), and the
/// transaction itself when the claim carries only its id (a legacy intake, or reconciliation
/// re-reading a stored purchase). What Apple returns is verified like any signed data, never
/// trusted because it came over TLS.
///
/// Throws `StoreFault` only when no verdict is possible: Apple down or refusing the key (401), the
/// key unreadable. That is never a refusal — the purchase waits (202) and the operator sees it.
public struct AppleStoreVerifier: StoreVerifier {
    public let store: CommerceStore = .appleStore
    public let verifier: AppleSignedDataVerifier
    let settings: StoreSettingsProvider?
    let api: AppStoreServerAPIClient?
    let now: @Sendable () -> Date

    /// Local verification only (no App Store Server API), for `claim.app`.
    public init(verifier: AppleSignedDataVerifier) {
        self.init(verifier: verifier, settings: nil, api: nil)
    }

    /// - Parameters:
    ///   - settings: each app's `stores.apple_store` (bundle id, In-App Purchase key).
    ///   - api: the App Store Server API; nil: signed transactions only.
    ///   - now: the clock that reads a subscription's state from its dates when Apple gave no status.
    public init(verifier: AppleSignedDataVerifier, settings: StoreSettingsProvider?, api: AppStoreServerAPIClient?,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.verifier = verifier
        self.settings = settings
        self.api = api
        self.now = now
    }

    /// The built-in Apple Root CA - G3 plus `appleRootCertificates` (DER paths).
    /// - Throws: when a configured root cannot be read or is not a certificate.
    public init(additionalRootCertificatePaths paths: [String], now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.init(verifier: try AppleSignedDataVerifier(additionalRootCertificatePaths: paths, now: now))
    }

    /// Whether lifecycles are filled in (a verifier made with settings or an API; the bare
    /// local verifier answers the signed transaction exactly, as before).
    var readsLifecycle: Bool { settings != nil || api != nil }

    public func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
        let apple = try await appleSettings(for: claim.app)
        let bundleId = apple?.bundleId ?? claim.app
        let jws = claim.appleSignedTransaction
        if jws.isEmpty {
            return Self.ofApp(try await lookUp(claim, settings: apple, bundleId: bundleId), claim.app, bundleId: bundleId)
        }
        if AppleAppReceipt.isAppReceipt(jws) {
            return Self.ofApp(try await verifyAppReceipt(jws, claim: claim, settings: apple, bundleId: bundleId), claim.app, bundleId: bundleId)
        }
        switch await verifier.verifyTransaction(jws, bundleId: bundleId, environments: [.production, .sandbox]) {
        case .invalid(let failure):
            return .refused(Self.refusal(for: failure))
        case .valid(let transaction):
            guard readsLifecycle else { return Self.ofApp(Self.purchase(from: transaction), claim.app, bundleId: bundleId) }
            // The status lookup is optional: no key, or any fault, still answers from the JWS.
            let credentials = try? AppStoreServerAPIClient.Credentials.configured(in: apple, app: claim.app)
            return Self.ofApp(await enriched(transaction, credentials: credentials ?? nil), claim.app, bundleId: bundleId)
        }
    }

    /// The verdict with the purchase named by Souk's app id: the signed bundle id was checked against
    /// the app's configured `bundleId` (which may differ from the app id), so a purchase signed for
    /// that bundle belongs to `app`. Any other bundle id is left as signed, and refused as another app's.
    static func ofApp(_ verdict: StoreVerdict, _ app: String, bundleId: String) -> StoreVerdict {
        guard case .verified(var purchase) = verdict, purchase.app == bundleId else { return verdict }
        purchase.app = app
        return .verified(purchase)
    }

    /// A claim without a signed transaction: Apple is asked by transaction id (sandbox first for a
    /// sandbox account, else production, then the other host when the first does not know it, as
    /// Apple recommends), and its answer verified.
    func lookUp(_ claim: PurchaseClaim, settings apple: AppleStoreSettings?, bundleId: String) async throws -> StoreVerdict {
        let hosts: [CommerceEnvironment] = claim.accountIsSandbox ? [.sandbox, .production] : [.production, .sandbox]
        return try await lookUp(claim.transactionId, at: hosts, app: claim.app, settings: apple, bundleId: bundleId)
    }

    /// Asks Apple for `transactionId` at each host of `hosts` in turn until one knows it.
    func lookUp(_ transactionId: String, at hosts: [CommerceEnvironment], app: String, settings apple: AppleStoreSettings?,
                bundleId: String) async throws -> StoreVerdict {
        guard let api, let credentials = try AppStoreServerAPIClient.Credentials.configured(in: apple, app: app) else {
            return .refused(PurchaseRefusal("store-not-configured",
                                            "An App Store purchase without a signed transaction needs the In-App Purchase key of app \(app) (keyId, issuerId, privateKey) to be looked up."))
        }
        for environment in hosts {
            switch try await api.transactionInfo(transactionId, environment: environment, credentials: credentials) {
            case .notFound:
                continue
            case .invalid(let code, _):
                return .refused(.invalidReceipt("The App Store refused the transaction id (errorCode \(code.map(String.init) ?? "none"))."))
            case .found(let jws):
                switch await verifier.verifyTransaction(jws, bundleId: bundleId, environments: [environment]) {
                case .invalid(let failure): return .refused(Self.refusal(for: failure))
                case .valid(let transaction): return await enriched(transaction, credentials: credentials)
                }
            }
        }
        guard hosts.count == 1, let host = hosts.first else {
            return .refused(.invalidReceipt("The App Store knows no transaction with this id, in production or in sandbox."))
        }
        return .refused(.invalidReceipt("The App Store knows no transaction \(transactionId) in \(host.rawValue)."))
    }

    /// The purchase of `transaction`, with its subscription's lifecycle: from the App Store Server
    /// API's status and renewal info when the key is configured and Apple answers, else from the
    /// transaction's dates. The purchase stays the transaction claimed; when Apple's latest
    /// transaction of the subscription is that same one, its fresher dates (expiry, revocation)
    /// are taken; when it is a later renewal, only the lifecycle is read from it (the renewal is a
    /// purchase of its own, recorded when it is reported or notified).
    func enriched(_ transaction: AppleTransactionPayload, credentials: AppStoreServerAPIClient.Credentials?) async -> StoreVerdict {
        guard case .verified(var purchase) = Self.purchase(from: transaction) else { return Self.purchase(from: transaction) }
        guard transaction.type == .autoRenewableSubscription else { return .verified(purchase) }
        let now = now()
        var lifecycle = AppleLifecycle.lifecycle(transaction: transaction, renewal: nil, status: nil, now: now)
        if let api, let credentials, let status = await status(of: transaction, environment: purchase.environment,
                                                              api: api, credentials: credentials) {
            lifecycle = AppleLifecycle.lifecycle(transaction: status.latest ?? transaction, renewal: status.renewal,
                                                 status: status.status, now: now)
            if let latest = status.latest, latest.transactionId == transaction.transactionId, let signed = latest.signedDate {
                purchase.signedDate = max(purchase.signedDate, signed)
                purchase.expiresDate = latest.expiresDate
                purchase.revocationDate = latest.revocationDate
                purchase.revocationReason = latest.rawRevocationReason.map(String.init)
            }
        }
        purchase.lifecycle = lifecycle
        return .verified(purchase)
    }

    /// The subscription's status, renewal info and latest transaction, each verified; nil when
    /// Apple cannot be asked or does not answer (never a reason to hold the intake).
    func status(of transaction: AppleTransactionPayload, environment: CommerceEnvironment, api: AppStoreServerAPIClient,
                credentials: AppStoreServerAPIClient.Credentials) async
        -> (status: Int?, renewal: AppleRenewalInfoPayload?, latest: AppleTransactionPayload?)? {
        guard let id = transaction.transactionId, let original = transaction.originalTransactionId ?? transaction.transactionId,
              let bundleId = transaction.bundleId,
              let answer = try? await api.subscriptionStatuses(id, environment: environment, credentials: credentials),
              case .found(let statuses) = answer, let last = statuses.lastTransaction(originalTransactionId: original) else {
            return nil
        }
        var renewal: AppleRenewalInfoPayload?
        if let signed = last.signedRenewalInfo {
            guard case .valid(let payload) = await verifier.verifyRenewalInfo(signed, environments: [environment]) else { return nil }
            renewal = payload
        }
        var latest: AppleTransactionPayload?
        if let signed = last.signedTransactionInfo {
            guard case .valid(let payload) = await verifier.verifyTransaction(signed, bundleId: bundleId, environments: [environment]),
                  payload.originalTransactionId == original else { return nil }
            latest = payload
        }
        return (last.status, renewal, latest)
    }

    func appleSettings(for app: String) async throws -> AppleStoreSettings? {
        guard let settings else { return nil }
        do {
            return try await settings(app)?.apple
        } catch {
            throw StoreFault(.unavailable, "The App Store settings of app \(app) cannot be read.")
        }
    }

    /// The purchase as the signed payload states it; refused when a field Souk needs is missing.
    static func purchase(from transaction: AppleTransactionPayload) -> StoreVerdict {
        guard let transactionId = transaction.transactionId, let productId = transaction.productId,
              let purchaseDate = transaction.purchaseDate, let signedDate = transaction.signedDate,
              let bundleId = transaction.bundleId,
              let raw = transaction.rawEnvironment, let environment = CommerceEnvironment(rawValue: raw) else {
            return .refused(.invalidReceipt("the signed transaction lacks transactionId, productId, purchaseDate, signedDate, bundleId or environment"))
        }
        var purchase = VerifiedPurchase(
            store: .appleStore,
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId ?? transactionId,
            storeProductId: productId,
            type: transaction.rawType.flatMap(ProductType.init(appleType:)),
            purchaseDate: purchaseDate,
            originalPurchaseDate: transaction.originalPurchaseDate,
            expiresDate: transaction.expiresDate,
            // A prorated refund leaves the purchase the customer's: only a full refund or a revocation ends it.
            revocationDate: transaction.isPartialRefund ? nil : transaction.revocationDate,
            revocationReason: transaction.isPartialRefund ? nil : transaction.rawRevocationReason.map(String.init),
            quantity: transaction.quantity ?? 1,
            ownershipType: transaction.rawInAppOwnershipType ?? AppleOwnershipType.purchased.rawValue,
            environment: environment,
            app: bundleId,
            signedDate: signedDate,
            appAccountToken: transaction.appAccountToken
        )
        // Apple signs what was paid for this transaction (milli-units) and in which currency.
        if let price = transaction.price, let currency = transaction.currency {
            purchase.price = price
            purchase.currency = currency
        }
        // The storefront is ISO 3166-1 alpha-3 (`USA`); Souk keeps countries as alpha-2.
        purchase.country = CountryCode.normalized(transaction.storefront)
        return .verified(purchase)
    }

    /// Verification failures as purchase refusals: the app and the environment keep their own
    /// codes; everything about the signature is `invalid-signature`, a JWS that cannot be read
    /// `invalid-receipt`. The detail names the precise check.
    static func refusal(for failure: AppleVerificationFailure) -> PurchaseRefusal {
        switch failure.reason {
        case .wrongApp: .wrongApp(failure.detail)
        case .wrongEnvironment: .wrongEnvironment(failure.detail)
        case .malformedJWS, .malformedReceipt: .invalidReceipt("\(failure.reason.rawValue): \(failure.detail)")
        default: .invalidSignature("\(failure.reason.rawValue): \(failure.detail)")
        }
    }
}
