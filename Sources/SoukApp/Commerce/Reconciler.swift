import Foundation
import Logging
import SoukCore
import SoukIntegrations
import SoukStore

/// Asks the stores again about subscriptions whose state may have changed without a notification
/// reaching Souk: an expiry or a grace period passed, a Roku recovery, a billing
/// retry. Purchases are claimed with a lease (`PurchaseStore.claimRechecks`), so several processes
/// sharing PostgreSQL never ask twice; each answer is applied like a notification (source
/// `reconciliation`); a store that gives no answer is asked again after a back-off, and its fault
/// is noted for `souk stores status`. A refusal on re-reading is not taken as a verdict either.
public struct Reconciler: Sendable {
    package let purchases: PurchaseStore
    package let verifiers: StoreVerifiers
    package let catalogs: CommerceCatalogCache
    package let storeStatus: StoreStatusStore?
    /// The first back-off after a re-check without an answer (`storeRetryBaseMs`).
    package let retryBase: TimeInterval
    package let now: @Sendable () -> Date
    package let logger: Logger

    public init(purchases: PurchaseStore, verifiers: StoreVerifiers, catalogs: CommerceCatalogCache, storeStatus: StoreStatusStore?,
                retryBase: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.now = now
        self.purchases = purchases
        self.verifiers = verifiers
        self.catalogs = catalogs
        self.storeStatus = storeStatus
        self.retryBase = retryBase
        self.logger = logger
    }

    /// What one run did.
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        public var checked = 0
        /// Re-checks whose answer changed something (events in `events`).
        public var changed = 0
        /// No answer (fault) or not re-readable; asked again later.
        public var failed = 0
        public var events: [LifecycleEventType] = []

        public var description: String {
            "checked \(checked), changed \(changed), no answer \(failed)"
                + (events.isEmpty ? "" : "; events: " + events.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// Re-checks what is due (or, with `force`, every live subscription of `app`/`account`), in
    /// batches of `batch` until none is left.
    /// A period recorded during the run (a renewal just found) is left for its own turn.
    public func run(app: String? = nil, account: UUID? = nil, force: Bool = false, batch: Int = 50) async throws -> Summary {
        var summary = Summary()
        var seen: Set<UUID> = []
        let start = now()
        while !Task.isCancelled {
            let claimed = try await purchases.claimRechecks(limit: batch, app: app, account: account, force: force, createdBefore: start,
                                                            excluding: seen)
            seen.formUnion(claimed.map(\.paymentId))
            if claimed.isEmpty { break }
            for purchase in claimed {
                await recheck(purchase, into: &summary)
            }
        }
        return summary
    }

    package func recheck(_ purchase: StoredPurchase, into summary: inout Summary) async {
        summary.checked += 1
        let metadata: Logger.Metadata = ["app": "\(purchase.app)", "store": "\(purchase.store.rawValue)", "payment": "\(purchase.paymentId)"]
        do {
            let sandbox = try await purchases.accountIsSandbox(purchase.accountId) ?? false
            guard let verifier = verifiers.verifier(for: purchase.store), let claim = purchase.recheckClaim(accountIsSandbox: sandbox) else {
                logger.notice("purchase cannot be re-read at its store; no more re-checks", metadata: metadata)
                try await purchases.finishRecheck(purchase.paymentId, next: nil)
                summary.failed += 1
                return
            }
            let answer: StoreVerdict
            do {
                if let apple = verifier as? AppleStoreVerifier, purchase.productType == .autoRenewable {
                    // Apple: the subscription's latest transaction (a renewal Souk may not have heard of), with its state.
                    answer = try await apple.currentSubscription(app: purchase.app, originalTransactionId: claim.transactionId,
                                                                 environment: purchase.environment ?? .production)
                } else {
                    answer = try await verifier.verify(claim)
                }
            } catch let fault as StoreFault {
                try await storeStatus?.recordFault(app: purchase.app, store: purchase.store, fault, at: now())
                throw fault
            }
            try await storeStatus?.recordAnswer(app: purchase.app, store: purchase.store, at: now())
            guard case .verified(let verified) = answer else {
                if case .refused(let refusal) = answer {
                    if refusal.code == "store-not-configured" {
                        // Nothing to ask with (e.g. no In-App Purchase key): notifications and intake still apply.
                        try await purchases.finishRecheck(purchase.paymentId, next: nil)
                        return
                    }
                    logger.warning("store refused to re-read a recorded purchase; asked again later",
                                   metadata: metadata.merging(["code": "\(refusal.code)"]) { $1 })
                }
                try await purchases.postponeRecheck(purchase, base: max(retryBase, RecheckSchedule.lagging))
                summary.failed += 1
                return
            }
            let catalog = try await catalogs.state(app: purchase.app)
            let outcome = try await purchases.apply(verified, app: purchase.app, source: .reconciliation, catalog: catalog)
            var current = purchase.paymentId
            switch outcome {
            case .applied(let payment, let events):
                current = payment
                if !events.isEmpty { summary.changed += 1 }
                summary.events += events
            case .unchanged(let payment):
                current = payment
            case .unknownPurchase:
                break
            }
            let next = RecheckSchedule.next(type: purchase.productType, state: verified.lifecycle?.state, expiresDate: verified.expiresDate,
                                            graceExpiresDate: verified.lifecycle?.graceExpiresDate, revoked: verified.revocationDate != nil,
                                            recheckAt: verified.lifecycle?.recheckAt, now: now())
            try await purchases.finishRecheck(current, next: next)
            if current != purchase.paymentId { try await purchases.finishRecheck(purchase.paymentId, next: nil) }
        } catch {
            summary.failed += 1
            logger.warning("re-check got no answer; asked again later", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            try? await purchases.postponeRecheck(purchase, base: retryBase)
        }
    }
}

extension Reconciler {
    /// `souk stores reconcile --account`: for each app the account bought in through the App Store,
    /// the customer's whole transaction history (paged by `revision`) and refund history, applied
    /// oldest first — renewals Souk never heard of are recorded, refunds revoke. Apps without an
    /// In-App Purchase key are skipped (and said so in `skipped`).
    public func reconcileAppleHistory(account: UUID, app: String? = nil) async throws -> (summary: Summary, skipped: [String]) {
        var summary = Summary()
        var skipped: [String] = []
        guard let apple = verifiers.verifier(for: .appleStore) as? AppleStoreVerifier else { return (summary, skipped) }
        let owned = try await purchases.list(account: account, app: app)
            .filter { $0.store == .appleStore && $0.status == .granted && $0.transactionId != nil }
        for (appId, bought) in Dictionary(grouping: owned, by: \.app).sorted(by: { $0.key < $1.key }) {
            let catalog = try await catalogs.state(app: appId)
            for environment in Set(bought.compactMap(\.environment)).sorted(by: { $0.rawValue < $1.rawValue }) {
                guard let any = bought.first(where: { $0.environment == environment }), let transactionId = any.transactionId else { continue }
                let history: [VerifiedPurchase]
                do {
                    history = try await apple.customerHistory(app: appId, transactionId: transactionId, environment: environment)
                } catch let fault as StoreFault where fault.kind == .notConfigured {
                    skipped.append(appId)
                    continue
                } catch let fault as StoreFault {
                    try? await storeStatus?.recordFault(app: appId, store: .appleStore, fault, at: now())
                    summary.failed += 1
                    continue
                }
                try? await storeStatus?.recordAnswer(app: appId, store: .appleStore, at: now())
                for verified in history {
                    summary.checked += 1
                    if case .applied(_, let events) = try await purchases.apply(verified, app: appId, source: .reconciliation, catalog: catalog),
                       !events.isEmpty {
                        summary.changed += 1
                        summary.events += events
                    }
                }
            }
        }
        return (summary, skipped)
    }
}

/// Runs the `Reconciler` every `reconcileIntervalSeconds` in each process, then reads Google Play's
/// voided purchases (`voided`); the leases keep processes from checking the same purchase or
/// listing the same app.
public struct ReconciliationService: PollingWorker {
    package let reconciler: Reconciler
    package let voided: GoogleVoidedPurchasesPoller?
    public let interval: Duration
    package let logger: Logger

    public init(reconciler: Reconciler, voided: GoogleVoidedPurchasesPoller? = nil, interval: Duration, logger: Logger) {
        self.reconciler = reconciler
        self.voided = voided
        self.interval = interval
        self.logger = logger
    }

    @discardableResult
    public func processDue() async -> Int {
        var done = 0
        do {
            let summary = try await reconciler.run()
            if summary.checked > 0 { logger.info("reconciliation", metadata: ["summary": "\(summary)"]) }
            done += summary.checked
        } catch {
            logger.error("reconciliation cannot run now", metadata: ["error": "\(String(reflecting: error))"])
        }
        if let voided {
            let summary = await voided.run()
            if summary.read > 0 { logger.info("Google Play voided purchases", metadata: ["summary": "\(summary)"]) }
            done += summary.revoked + summary.partial
        }
        return done
    }
}
