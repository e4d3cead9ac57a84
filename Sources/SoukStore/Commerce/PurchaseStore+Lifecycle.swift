import Foundation
import SQLKit
import SoukCore

/// What applying a store's statement to the purchases came to.
public enum LifecycleApplyOutcome: Sendable, Equatable {
    /// Recorded (`paymentId`: the row the statement is about, a new one for a renewal); the events it derived.
    case applied(paymentId: UUID, events: [LifecycleEventType])
    /// Souk already held this statement or a later one.
    case unchanged(paymentId: UUID)
    /// No purchase Souk recorded is this one or an earlier period of it (it was never reported by the app).
    case unknownPurchase
}

/// Every store, every change: the lifecycle columns and events of purchases.
/// Intake (`record`), notifications and reconciliation (`apply`), store refunds (`revokeAtStore`)
/// and the operator (`revoke`) all derive their events with `LifecycleTransition` from what Souk
/// held and what the store now says, and record each once (`commerce_events`, unique per dedup key),
/// in the transaction of the change.
extension PurchaseStore {
    /// Applies a store's newer statement about a purchase Souk recorded (a notification, a
    /// re-check): the same transaction is updated when the statement is later-signed than what
    /// Souk holds (older or repeated statements change nothing, so notifications may come in any
    /// order); a new transaction of a known subscription (a renewal, an upgrade, a Google purchase
    /// replacing its `linkedPurchaseToken`) is recorded for the owner of the earlier one.
    ///
    /// `reinstates`: the store took a refund back (Apple `REFUND_REVERSED`): the revocation is cleared
    /// and a consumable's balance gets back what the refund took (`giveBackReversed`).
    public func apply(_ verified: VerifiedPurchase, app: String, source: LifecycleSource, catalog: CommerceCatalogState?,
                      reinstates: Bool = false) async throws -> LifecycleApplyOutcome {
        let at = now()
        let key = "purchase:\(app)|\(verified.store.rawValue)|\(verified.originalTransactionId)"
        return try await write(app: app, key: key) { sql, changes in
            if let existing = try await Self.purchase(app: app, store: verified.store, transactionId: verified.transactionId, on: sql) {
                guard existing.status == .granted, existing.signedDate.map({ $0 < verified.signedDate }) ?? true else {
                    return .unchanged(paymentId: existing.paymentId)
                }
                try await Self.update(existing, with: verified, at: at, on: sql)
                if reinstates, verified.revocationDate == nil {
                    try await sql.update("purchases").set("revoked_at", to: SQLLiteral.null).set("revocation_reason", to: SQLLiteral.null)
                        .where("id", .equal, existing.paymentId).run()
                    try await Self.giveBackReversed(existing, on: sql)
                }
                try await Self.writeLifecycle(existing.paymentId, verified, type: existing.productType, at: at, on: sql)
                let events = try await Self.recordEvents(before: Self.facts(existing), after: verified, payment: existing,
                                                         source: source, at: at, on: sql)
                changes.accounts.insert(existing.accountId)
                return .applied(paymentId: existing.paymentId, events: events)
            }
            guard let anchor = try await Self.anchor(of: verified, app: app, on: sql), anchor.productType != .consumable,
                  let environment = anchor.environment else {
                return .unknownPurchase
            }
            // The product the new transaction is of: its SKU's (an upgrade), else the earlier one's.
            let product = catalog?.product(store: verified.store, sku: verified.storeProductId)
                ?? catalog?.product(anchor.productId)
                ?? ProductDefinition(id: anchor.productId, type: anchor.productType)
            let claim = PurchaseClaim(store: verified.store, app: app, storeProductId: verified.storeProductId,
                                      transactionId: verified.transactionId, userId: anchor.userId, receipt: "")
            let paymentId = UUID()
            try await Self.insert(paymentId, intake: PurchaseIntake(account: anchor.accountId, product: product, claim: claim),
                                  verified: verified, environment: environment, at: at, on: sql)
            try await Self.writeLifecycle(paymentId, verified, type: product.type, at: at, on: sql)
            if (anchor.purchaseDate ?? .distantPast) < verified.purchaseDate {
                try await Self.endEarlierPeriod(anchor, at: verified.purchaseDate, on: sql)
            }
            guard let inserted = try await Self.payment(paymentId, on: sql) else { throw PurchaseStoreError("inserted purchase vanished") }
            let events = try await Self.recordNewTransactionEvents(previous: anchor, after: verified, payment: inserted, source: source,
                                                                   at: at, on: sql)
            changes.accounts.insert(anchor.accountId)
            return .applied(paymentId: paymentId, events: events)
        }
    }

    /// A refund or revocation the store announced without a new signed statement (Google's voided
    /// purchases): the granted, unrevoked purchases with that store reference lose access now — all
    /// of them, or those with the order id `transactionId` and, with `activeAt`, those still running
    /// then (a voided subscription ends; its earlier, paid periods are not said to be refunded).
    /// Returns the payments revoked.
    @discardableResult
    public func revokeAtStore(app: String, store: CommerceStore, storeReference: String, transactionId: String?, activeAt: Date? = nil,
                              at revokedAt: Date, reason: String, source: LifecycleSource) async throws -> [UUID] {
        let at = now()
        return try await write(app: app, key: "reference:\(app)|\(store.rawValue)|\(storeReference)") { sql, changes in
            var query = sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
                .where("app", .equal, app).where("store", .equal, store.rawValue).where("store_reference", .equal, storeReference)
                .where("status", .equal, PurchaseStatus.granted.rawValue).where("revoked_at", .is, SQLLiteral.null)
            if transactionId != nil || activeAt != nil {
                query = query.where { group in
                    var group = group
                    if let transactionId { group = group.orWhere("transaction_id", .equal, transactionId) }
                    if let activeAt {
                        group = group.orWhere("expires_date", .greaterThan, activeAt).orWhere("expires_date", .is, SQLLiteral.null)
                    }
                    return group
                }
            }
            var revoked: [UUID] = []
            for purchase in try await query.all().map(StoredPurchase.decode) {
                var after = Self.statement(of: purchase)
                after.revocationDate = revokedAt
                after.revocationReason = reason
                after.signedDate = revokedAt
                try await Self.markRevoked(purchase, at: revokedAt, reason: reason, now: at, on: sql)
                _ = try await Self.recordEvents(before: Self.facts(purchase), after: after, payment: purchase, source: source, at: at, on: sql)
                changes.accounts.insert(purchase.accountId)
                revoked.append(purchase.paymentId)
            }
            return revoked
        }
    }

    /// The purchases of an app recorded with a store reference (Google's purchase token), newest first.
    public func purchases(app: String, store: CommerceStore, storeReference: String) async throws -> [StoredPurchase] {
        try await database.sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
            .where("app", .equal, app).where("store", .equal, store.rawValue).where("store_reference", .equal, storeReference)
            .orderBy("purchase_date", .descending).all().map(StoredPurchase.decode)
    }

    /// The purchases of one original transaction, newest first.
    public func purchases(app: String, store: CommerceStore, originalTransactionId: String) async throws -> [StoredPurchase] {
        try await database.sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
            .where("app", .equal, app).where("store", .equal, store.rawValue).where("original_transaction_id", .equal, originalTransactionId)
            .orderBy("purchase_date", .descending).all().map(StoredPurchase.decode)
    }

    // MARK: Re-checks (reconciliation)

    /// How long a claimed re-check is left to its process before another may take it.
    public static let recheckLease: TimeInterval = 300

    /// Claims up to `limit` granted purchases whose re-check is due (optionally of one app and
    /// account), each by a conditional update that moves `next_check_at` to the end of a lease, so
    /// two processes never re-check the same one at once. `force`: every re-checkable subscription
    /// of the app/account now (`souk stores reconcile`), whatever its schedule.
    /// `createdBefore`: leaves out periods recorded since (a run's own renewals); `excluding`: those a run already checked.
    public func claimRechecks(limit: Int, app: String? = nil, account: UUID? = nil, force: Bool = false,
                              createdBefore: Date? = nil, excluding: Set<UUID> = []) async throws -> [StoredPurchase] {
        let at = now()
        var query = database.sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
            .where("status", .equal, PurchaseStatus.granted.rawValue)
        if force {
            // Every subscription's latest period (an earlier one says nothing the latest does not).
            query = query.where("product_type", .equal, ProductType.autoRenewable.rawValue).where("revoked_at", .is, SQLLiteral.null)
                .where(SQLRaw("""
                    NOT EXISTS (SELECT 1 FROM purchases later WHERE later.app = purchases.app AND later.store = purchases.store
                    AND later.original_transaction_id = purchases.original_transaction_id AND later.status = 'granted'
                    AND later.purchase_date > purchases.purchase_date)
                    """))
        } else {
            query = query.where("next_check_at", .lessThanOrEqual, at)
        }
        if let app { query = query.where("app", .equal, app) }
        if let account { query = query.where("account_id", .equal, account) }
        if let createdBefore { query = query.where("created_at", .lessThan, createdBefore) }
        if !excluding.isEmpty { query = query.where("id", .notIn, Array(excluding)) }
        let due = try await query.orderBy("next_check_at").limit(limit).all().map(StoredPurchase.decode)
        var claimed: [StoredPurchase] = []
        let leaseEnd = at.addingTimeInterval(Self.recheckLease)
        for purchase in due {
            // Decided in the database: due (or, forced, not under another process's lease), so two claims never both win.
            let row = try await database.sql.update("purchases").set("next_check_at", to: leaseEnd)
                .where("id", .equal, purchase.paymentId)
                .where { group in
                    var group = group.orWhere("next_check_at", .lessThanOrEqual, at)
                    if force { group = group.orWhere("next_check_at", .is, SQLLiteral.null).orWhere("next_check_at", .greaterThan, leaseEnd) }
                    return group
                }
                .returning("id").first()
            if row != nil { claimed.append(purchase) }
        }
        return claimed
    }

    /// A re-check answered: when to ask again (nil: never) and that the store answered now.
    public func finishRecheck(_ paymentId: UUID, next: Date?) async throws {
        try await database.sql.update("purchases").set("next_check_at", to: SQLBind(next)).set("last_checked_at", to: now())
            .set("check_attempts", to: 0).where("id", .equal, paymentId).run()
    }

    /// A re-check that got no answer (the store is down, the credentials refused): tried again after a back-off.
    public func postponeRecheck(_ purchase: StoredPurchase, base: TimeInterval) async throws {
        let row = try await database.sql.select().column("check_attempts").from("purchases").where("id", .equal, purchase.paymentId).first()
        let failures = (try row?.decode(column: "check_attempts", as: Int?.self) ?? 0) + 1
        let next = now().addingTimeInterval(RecheckSchedule.backOff(failures: failures, base: base))
        try await database.sql.update("purchases").set("next_check_at", to: next).set("check_attempts", to: failures)
            .where("id", .equal, purchase.paymentId).run()
    }

    // MARK: Statements

    static func purchase(app: String, store: CommerceStore, transactionId: String, on sql: any SQLDatabase) async throws -> StoredPurchase? {
        try await sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
            .where("app", .equal, app).where("store", .equal, store.rawValue).where("transaction_id", .equal, transactionId)
            .first().map(StoredPurchase.decode)
    }

    /// The latest granted purchase a new transaction continues: of its original transaction, its
    /// store reference (Google keeps the token across renewals) or the reference it replaces.
    static func anchor(of verified: VerifiedPurchase, app: String, on sql: any SQLDatabase) async throws -> StoredPurchase? {
        let references = [verified.storeReference, verified.linkedStoreReference].compactMap { $0 }.filter { !$0.isEmpty }
        let rows = try await sql.select().columns(SQLRaw(StoredPurchase.columns)).from("purchases")
            .where("app", .equal, app).where("store", .equal, verified.store.rawValue)
            .where("status", .equal, PurchaseStatus.granted.rawValue)
            .where { group in
                var group = group.orWhere("original_transaction_id", .equal, verified.originalTransactionId)
                if !references.isEmpty { group = group.orWhere("store_reference", .in, references) }
                return group
            }
            .orderBy("purchase_date", .descending).limit(1).all()
        return try rows.first.map(StoredPurchase.decode)
    }

    /// A subscription runs one period at a time: the period a newer transaction continues (a
    /// renewal, an upgrade) ends when that one begins, and carries no more re-checks — so what the
    /// store says of the newer one (a refund, an expiry) is what the subscription's access follows.
    static func endEarlierPeriod(_ earlier: StoredPurchase, at start: Date, on sql: any SQLDatabase) async throws {
        var update = sql.update("purchases").set("next_check_at", to: SQLLiteral.null)
        if earlier.productType == .autoRenewable, earlier.expiresDate.map({ $0 > start }) ?? true {
            update = update.set("expires_date", to: start)
        }
        try await update.where("id", .equal, earlier.paymentId).run()
    }

    /// Writes what a statement says of the purchase's lifecycle, and when to re-check it.
    static func writeLifecycle(_ id: UUID, _ verified: VerifiedPurchase, type: ProductType, at: Date, on sql: any SQLDatabase) async throws {
        let lifecycle = verified.lifecycle
        let next = RecheckSchedule.next(type: type, state: lifecycle?.state, expiresDate: verified.expiresDate,
                                        graceExpiresDate: lifecycle?.graceExpiresDate, revoked: verified.revocationDate != nil,
                                        recheckAt: lifecycle?.recheckAt, now: at)
        var update = sql.update("purchases")
            .set("subscription_state", to: SQLBind(lifecycle?.state.rawValue ?? (verified.revocationDate != nil && type.isSubscription ? SubscriptionState.revoked.rawValue : nil)))
            .set("will_renew", to: SQLBind(lifecycle?.willRenew)).set("grace_expires_at", to: SQLBind(lifecycle?.graceExpiresDate))
            .set("period_type", to: SQLBind(lifecycle?.periodType.rawValue))
            .set("auto_renew_product_id", to: SQLBind(lifecycle?.autoRenewStoreProductId))
            .set("next_check_at", to: SQLBind(next))
        if let reference = verified.storeReference { update = update.set("store_reference", to: reference) }
        if let linked = verified.linkedStoreReference { update = update.set("linked_store_reference", to: linked) }
        if let option = verified.purchaseOptionId { update = update.set("store_purchase_option_id", to: option) }
        if let offer = verified.offerId { update = update.set("store_offer_id", to: offer) }
        // What Souk owes the store (Google): an acknowledgement, a consumption; the worker takes it from here.
        var owed = false
        if verified.acknowledged == false, verified.revocationDate == nil {
            update = update.set("store_acknowledged", to: false)
            owed = true
        } else if verified.acknowledged == true {
            update = update.set("store_acknowledged", to: true)
        }
        if type == .consumable, verified.consumed == false, verified.revocationDate == nil {
            update = update.set("store_consumed", to: false)
            owed = true
        } else if verified.consumed == true {
            update = update.set("store_consumed", to: true)
        }
        // Set once: PostgreSQL refuses an UPDATE that assigns a column twice (SQLite keeps the last), which
        // made every Google consumable owing both an acknowledgement and a consumption fail there.
        if owed { update = update.set("action_next_at", to: at) }
        try await update.where("id", .equal, id).run()
    }

    static func markRevoked(_ purchase: StoredPurchase, at revokedAt: Date, reason: String, now: Date, on sql: any SQLDatabase) async throws {
        try await sql.update("purchases").set("revoked_at", to: revokedAt).set("revocation_reason", to: reason)
            .set("subscription_state", to: SQLBind(purchase.productType.isSubscription ? SubscriptionState.revoked.rawValue : nil))
            .set("next_check_at", to: SQLLiteral.null).set("updated_at", to: now)
            .where("id", .equal, purchase.paymentId).run()
        try await takeBackRefunded(purchase, on: sql)
    }

    /// What Souk holds of a purchase, as lifecycle facts.
    static func facts(_ purchase: StoredPurchase) -> PurchaseLifecycleFacts {
        PurchaseLifecycleFacts(transactionId: purchase.transactionId ?? purchase.claimedTransactionId,
                               originalTransactionId: purchase.originalTransactionId, storeProductId: purchase.storeProductId,
                               productId: purchase.productId, expiresDate: purchase.expiresDate, revokedAt: purchase.revokedAt,
                               state: purchase.subscriptionState, willRenew: purchase.willRenew,
                               graceExpiresDate: purchase.graceExpiresDate, autoRenewStoreProductId: purchase.autoRenewStoreProductId)
    }

    /// A stored purchase as the statement that recorded it (to derive events of a change Souk makes itself).
    static func statement(of purchase: StoredPurchase) -> VerifiedPurchase {
        VerifiedPurchase(store: purchase.store, transactionId: purchase.transactionId ?? purchase.claimedTransactionId,
                         originalTransactionId: purchase.originalTransactionId ?? purchase.claimedTransactionId,
                         storeProductId: purchase.storeProductId, type: purchase.productType, purchaseDate: purchase.purchaseDate ?? purchase.createdAt,
                         expiresDate: purchase.expiresDate, revocationDate: purchase.revokedAt, revocationReason: purchase.revocationReason,
                         quantity: purchase.quantity, environment: purchase.environment ?? .production, app: purchase.app,
                         signedDate: purchase.signedDate ?? purchase.updatedAt,
                         lifecycle: purchase.subscriptionState.map {
                             StoreLifecycle(state: $0, willRenew: purchase.willRenew, graceExpiresDate: purchase.graceExpiresDate,
                                            periodType: purchase.periodType ?? .normal, autoRenewStoreProductId: purchase.autoRenewStoreProductId)
                         },
                         storeReference: purchase.storeReference)
    }

    /// The events of a transaction newly recorded after `previous`, the latest period Souk held of
    /// its subscription: compared with it when it continues it; a first purchase (its own original)
    /// has no before; a period older than `previous` (a restore or a history bringing in a period
    /// Souk missed) says only that it happened — its renewal, a product change, its refund — never
    /// a state change, which the newer period already told.
    static func recordNewTransactionEvents(previous: StoredPurchase?, after verified: VerifiedPurchase, payment: StoredPurchase,
                                           source: LifecycleSource, at: Date, on sql: any SQLDatabase) async throws -> [LifecycleEventType] {
        guard let previous, verified.transactionId != verified.originalTransactionId else {
            return try await recordEvents(before: nil, after: verified, payment: payment, source: source, at: at, on: sql)
        }
        let older = (previous.purchaseDate ?? .distantPast) > verified.purchaseDate
        return try await recordEvents(before: facts(previous), after: verified, payment: payment, source: source, at: at, on: sql,
                                      only: older ? [.renewal, .productChange, .refund] : nil)
    }

    /// Records the events between `before` (nil: a first purchase) and the store's statement
    /// `after`, about `payment` (the row `after` was recorded in), limited to `only` when given.
    /// Returns the types recorded now.
    static func recordEvents(before: PurchaseLifecycleFacts?, after verified: VerifiedPurchase, payment: StoredPurchase,
                             source: LifecycleSource, at: Date, on sql: any SQLDatabase,
                             only: Set<LifecycleEventType>? = nil) async throws -> [LifecycleEventType] {
        let after = PurchaseLifecycleFacts(
            transactionId: verified.transactionId, originalTransactionId: verified.originalTransactionId,
            storeProductId: verified.storeProductId, productId: payment.productId, expiresDate: verified.expiresDate,
            revokedAt: payment.revokedAt ?? verified.revocationDate, state: verified.lifecycle?.state, willRenew: verified.lifecycle?.willRenew,
            graceExpiresDate: verified.lifecycle?.graceExpiresDate, autoRenewStoreProductId: verified.lifecycle?.autoRenewStoreProductId)
        var recorded: [LifecycleEventType] = []
        for type in LifecycleTransition.events(before: before, after: after) where only?.contains(type) ?? true {
            let store = verified.store.rawValue
            let millis = { (date: Date?) in date.map { String(Int64($0.timeIntervalSince1970 * 1000)) } ?? "-" }
            let (occurred, dedup): (Date, String) = switch type {
            case .initialPurchase: (verified.originalPurchaseDate ?? verified.purchaseDate, "\(store)|\(verified.originalTransactionId)")
            case .renewal where before?.transactionId == verified.transactionId:
                (verified.signedDate, "\(store)|\(verified.transactionId)|\(millis(verified.expiresDate))")
            case .renewal, .productChange: (verified.purchaseDate, "\(store)|\(verified.transactionId)")
            case .refund: (after.revokedAt ?? verified.signedDate, "\(store)|\(verified.transactionId)")
            case .expiration:
                // At the expiry, or at the end of the grace period it had; never after the store said so.
                (min(verified.signedDate, max(verified.expiresDate ?? verified.signedDate, before?.graceExpiresDate ?? .distantPast)),
                 "\(store)|\(verified.transactionId)|\(millis(verified.expiresDate))")
            case .billingIssue: (verified.signedDate, "\(store)|\(verified.originalTransactionId)|\(millis(verified.expiresDate))")
            default: (verified.signedDate, "\(store)|\(verified.originalTransactionId)|\(millis(verified.signedDate))")
            }
            let event = CommerceEvent(app: payment.app, accountId: payment.accountId, type: type, source: source,
                                      environment: payment.environment ?? verified.environment, occurredAt: occurred, createdAt: at,
                                      productId: payment.productId, store: store, transactionId: verified.transactionId,
                                      originalTransactionId: verified.originalTransactionId, paymentId: payment.paymentId,
                                      expiresAt: verified.expiresDate, dedupKey: "\(type.rawValue)|\(dedup)")
            if try await CommerceEventStore.record(event, on: sql) { recorded.append(type) }
        }
        return recorded
    }

    /// Records one event Souk itself caused (a transfer, an operator's refund, a consumption).
    static func recordEvent(_ type: LifecycleEventType, about payment: StoredPurchase, source: LifecycleSource, dedup: String,
                            at: Date, on sql: any SQLDatabase) async throws {
        let event = CommerceEvent(app: payment.app, accountId: payment.accountId, type: type, source: source,
                                  environment: payment.environment ?? .production, occurredAt: at, createdAt: at, productId: payment.productId,
                                  store: payment.store.rawValue, transactionId: payment.transactionId,
                                  originalTransactionId: payment.originalTransactionId, paymentId: payment.paymentId,
                                  expiresAt: payment.expiresDate, dedupKey: "\(type.rawValue)|\(dedup)")
        try await CommerceEventStore.record(event, on: sql)
    }
}
