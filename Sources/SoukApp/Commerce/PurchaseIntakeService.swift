import Foundation
import Logging
import SoukCore
import SoukStore

/// The purchase path between the HTTP face and the store: checks a
/// reported purchase against the catalog (`PurchaseIntakeRule.precheck`), asks the store's
/// verifier, checks the verified purchase (`PurchaseIntakeRule.decide`) and records it
/// (`PurchaseStore`). Used by `POST transactions`, `POST restore` and the pending worker.
public struct PurchaseIntakeService: Sendable {
    package let purchases: PurchaseStore
    package let catalogs: CommerceCatalogCache
    package let verifiers: StoreVerifiers
    package let policy: TransferPolicy
    /// How long a request waits for a store before answering 202.
    package let timeout: Duration
    /// Where store faults are noted for the operator (`souk stores status`).
    package let storeStatus: StoreStatusStore?
    /// Whose account a purchase's account token names; nil: tokens are not read.
    package let accountTokens: AccountTokenStore?
    /// Counts store look-ups by id alone per account (`StoreLookupLimit`); nil: not limited.
    package let lookups: LoginThrottle?
    package let logger: Logger

    public init(purchases: PurchaseStore, catalogs: CommerceCatalogCache, verifiers: StoreVerifiers, policy: TransferPolicy,
                timeout: Duration, storeStatus: StoreStatusStore? = nil, accountTokens: AccountTokenStore? = nil,
                lookups: LoginThrottle? = nil, logger: Logger) {
        self.accountTokens = accountTokens
        self.lookups = lookups
        self.storeStatus = storeStatus
        self.purchases = purchases
        self.catalogs = catalogs
        self.verifiers = verifiers
        self.policy = policy
        self.timeout = timeout
        self.logger = logger
    }

    /// The refusal code of a restore whose store did not answer in time: never a verdict (503).
    public static let storeUnavailable = "store-unavailable"

    /// The person a request acts for.
    public struct Buyer: Sendable, Equatable {
        public var account: UUID
        public var email: String
        public var sandbox: Bool

        public init(account: UUID, email: String, sandbox: Bool) {
            self.account = account
            self.email = email
            self.sandbox = sandbox
        }
    }

    /// A reported purchase (`POST transactions`): the first outcome of its CloudEvent again, or the
    /// outcome of checking, verifying and recording it. Pending when the store did not answer in time.
    public func submit(_ event: PaymentValidationEvent, app: String, catalog: CommerceCatalogState, buyer: Buyer) async throws -> IntakeOutcome {
        let key = PurchaseEventKey(app: app, source: event.source, id: event.id)
        if let earlier = try await purchases.payment(for: key) {
            guard earlier.accountId == buyer.account else {
                return .refused(paymentId: nil, .duplicateEvent("This CloudEvent id was already used by another account."))
            }
            return IntakeOutcome(earlier)
        }
        if let username = event.data.username?.trimmingCharacters(in: .whitespaces), !username.isEmpty,
           AccountRecord.normalize(email: username) != buyer.email {
            return .refused(paymentId: nil, .wrongAccount("data.username names another account than the access token's."))
        }
        var claim = event.claim(app: app)
        claim.accountIsSandbox = buyer.sandbox
        let product: ProductDefinition
        switch PurchaseIntakeRule.precheck(productId: event.data.productId, claim: claim, catalog: catalog) {
        case .failure(let refusal): return .refused(paymentId: nil, refusal)
        case .success(let found): product = found
        }
        claim.productType = product.type
        guard let verifier = verifiers.verifier(for: claim.store) else {
            return .refused(paymentId: nil, .storeNotConfigured(claim.store))
        }
        let intake = PurchaseIntake(account: buyer.account, product: product, claim: claim, event: key)
        if !claim.hasProofOfPossession, let lookups,
           case .refused(let retryAfter) = try await lookups.claim(.storeLookups(account: buyer.account)) {
            throw StoreLookupLimit(retryAfter: retryAfter)
        }
        guard let verdict = await ask(verifier, claim) else {
            logger.notice("no store verdict; purchase pending", metadata: ["app": "\(app)", "store": "\(claim.store.rawValue)"])
            return try await purchases.recordPending(intake)
        }
        return try await settle(intake, verdict: verdict, catalog: catalog, accountIsSandbox: buyer.sandbox)
    }

    /// Records a verdict on an intake (`pendingPayment`: the pending payment it settles).
    package func settle(_ intake: PurchaseIntake, verdict: StoreVerdict, catalog: CommerceCatalogState, accountIsSandbox: Bool,
                pendingPayment: UUID? = nil) async throws -> IntakeOutcome {
        let refusal: PurchaseRefusal
        switch verdict {
        case .refused(let refused):
            refusal = refused
        case .verified(let verified):
            switch PurchaseIntakeRule.decide(verified: verified, product: intake.product, claim: intake.claim,
                                             accountIsSandbox: accountIsSandbox, allowSandbox: catalog.catalog.allowSandbox) {
            case .success(let environment):
                var intake = intake
                intake.accountToken = try await holder(of: verified, app: intake.claim.app, claimant: intake.account)
                guard case .otherAccount = intake.accountToken else {
                    return try await purchases.record(intake, verified: verified, environment: environment, policy: policy, catalog: catalog,
                                                      pendingPayment: pendingPayment)
                }
                refusal = .ownedByAnotherAccount("This purchase was made by another account: it carries that account's account token.")
            case .failure(let refused):
                refusal = refused
            }
        }
        logger.info("purchase refused", metadata: ["app": "\(intake.claim.app)", "code": "\(refusal.code)"])
        if let pendingPayment {
            try await purchases.refusePending(pendingPayment, app: intake.claim.app, refusal)
        }
        return .refused(paymentId: pendingPayment, refusal)
    }

    /// Whose Souk account token `verified` carries, if any.
    package func holder(of verified: VerifiedPurchase, app: String, claimant: UUID) async throws -> AccountTokenHolder {
        guard let accountTokens, let token = verified.appAccountToken, !token.isEmpty,
              let account = try await accountTokens.account(token: token, app: app) else { return .unknown }
        return account == claimant ? .claimant : .otherAccount(account)
    }

    /// One signed transaction a device holds (`POST restore`): verified, matched to the catalog
    /// product of its SKU, and recorded for the buyer under the transfer policy.
    public func restore(signedTransaction: String, store: CommerceStore = .appleStore, app: String, catalog: CommerceCatalogState,
                        buyer: Buyer) async throws -> (outcome: IntakeOutcome, productId: String?) {
        guard let verifier = verifiers.verifier(for: store) else { return (.refused(paymentId: nil, .storeNotConfigured(store)), nil) }
        // The claim is the signed data alone: what it names comes from the signature.
        let unsigned = PurchaseClaim(store: store, app: app, storeProductId: "", transactionId: "", receipt: signedTransaction,
                                     accountIsSandbox: buyer.sandbox)
        guard let verdict = await ask(verifier, unsigned) else {
            return (.refused(paymentId: nil, .init(Self.storeUnavailable, "The store did not answer in time; try again.")), nil)
        }
        guard case .verified(let verified) = verdict else {
            if case .refused(let refusal) = verdict { return (.refused(paymentId: nil, refusal), nil) }
            return (.refused(paymentId: nil, .invalidReceipt("no verdict")), nil)
        }
        guard let product = catalog.product(store: store, sku: verified.storeProductId) else {
            return (.refused(paymentId: nil, .unknownProduct("\(verified.storeProductId) is not the \(store.rawValue) SKU of a product of \(app).")), nil)
        }
        var claim = unsigned
        claim.storeProductId = verified.storeProductId
        let intake = PurchaseIntake(account: buyer.account, product: product, claim: claim)
        return (try await settle(intake, verdict: verdict, catalog: catalog, accountIsSandbox: buyer.sandbox), product.id)
    }

    /// The store's verdict on `claim`, or nil (noted for the operator) when it gave none in time.
    package func ask(_ verifier: any StoreVerifier, _ claim: PurchaseClaim) async -> StoreVerdict? {
        let answer = await StoreVerifiers.answer(verifier, on: claim, within: timeout)
        await note(answer, app: claim.app, store: claim.store)
        guard case .verdict(let verdict) = answer else { return nil }
        return verdict
    }

    /// Keeps `souk stores status` current. A failure to note it is logged, never the intake's failure.
    package func note(_ answer: StoreVerifiers.Answer, app: String, store: CommerceStore) async {
        guard let storeStatus else { return }
        do {
            switch answer {
            case .verdict: try await storeStatus.recordAnswer(app: app, store: store, at: Date())
            case .fault(let fault):
                logger.warning("store gave no verdict", metadata: ["app": "\(app)", "store": "\(store.rawValue)", "fault": "\(fault.kind.rawValue)"])
                try await storeStatus.recordFault(app: app, store: store, fault, at: Date())
            }
        } catch {
            logger.error("cannot note the store's status", metadata: ["app": "\(app)", "store": "\(store.rawValue)", "error": "\(error)"])
        }
    }

    /// Tries one pending purchase again (the pending worker). True when it was settled (granted or
    /// refused); false when the store still did not answer (it is postponed with back-off).
    public func retry(_ pending: PendingPurchase, timeout: Duration) async throws -> Bool {
        guard let catalog = try await catalogs.state(app: pending.claim.app), let product = catalog.product(pending.productId) else {
            try await purchases.refusePending(pending.paymentId, app: pending.claim.app,
                                              .unknownProduct("\(pending.productId) is no longer a product of \(pending.claim.app)."))
            return true
        }
        guard let verifier = verifiers.verifier(for: pending.claim.store) else {
            try await purchases.refusePending(pending.paymentId, app: pending.claim.app, .storeNotConfigured(pending.claim.store))
            return true
        }
        let sandbox = try await purchases.accountIsSandbox(pending.accountId) ?? false
        var claim = pending.claim
        claim.accountIsSandbox = sandbox
        claim.productType = product.type
        let answer = await StoreVerifiers.answer(verifier, on: claim, within: timeout)
        await note(answer, app: claim.app, store: claim.store)
        guard case .verdict(let verdict) = answer else {
            if case .fault(let fault) = answer { try await purchases.postpone(pending, reason: fault.description) }
            return false
        }
        let intake = PurchaseIntake(account: pending.accountId, product: product, claim: claim)
        _ = try await settle(intake, verdict: verdict, catalog: catalog, accountIsSandbox: sandbox, pendingPayment: pending.paymentId)
        return true
    }
}

/// An account asked the stores about more transactions by id alone than `SignInThrottleRule.storeLookups`
/// allows: ids are not enumerated at the store's expense (and Souk's store quota).
public struct StoreLookupLimit: Error, Sendable {
    /// Seconds until the account may ask again.
    public var retryAfter: Int
}
