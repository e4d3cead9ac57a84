import Foundation
import SQLKit
import SoukCore

/// A purchase an app reported, with what the catalog says of its product.
public struct PurchaseIntake: Sendable, Equatable {
    /// The buyer: the account of the request's token.
    public var account: UUID
    /// Souk's product (on sale or retired), already matched to the claim by `PurchaseIntakeRule.precheck`.
    public var product: ProductDefinition
    public var claim: PurchaseClaim
    /// The CloudEvent that reported it (nil for `POST restore`).
    public var event: PurchaseEventKey?
    /// Whose account token the verified purchase carries (`TransferRule`).
    public var accountToken: AccountTokenHolder

    public init(account: UUID, product: ProductDefinition, claim: PurchaseClaim, event: PurchaseEventKey? = nil,
                accountToken: AccountTokenHolder = .unknown) {
        self.accountToken = accountToken
        self.account = account
        self.product = product
        self.claim = claim
        self.event = event
    }
}

/// What recording a purchase came to.
public enum IntakeOutcome: Sendable, Equatable {
    /// Recorded for the account (now or before). It grants what it grants while active.
    case granted(paymentId: UUID)
    /// Waiting for the store's verdict.
    case pending(paymentId: UUID)
    /// Refused; `paymentId` when a payment was answered for it before (a pending one, or the event's).
    case refused(paymentId: UUID?, PurchaseRefusal)

    public var paymentId: UUID? {
        switch self {
        case .granted(let id), .pending(let id): id
        case .refused(let id, _): id
        }
    }

    /// The outcome a stored payment stands for.
    public init(_ payment: StoredPurchase) {
        switch payment.status {
        case .granted: self = .granted(paymentId: payment.paymentId)
        case .pending: self = .pending(paymentId: payment.paymentId)
        case .refused: self = .refused(paymentId: payment.paymentId, payment.refusal ?? .invalidReceipt("refused"))
        }
    }
}

extension PurchaseStore {
    /// Records a purchase the store verified, for `intake.account`, in `environment` (decided by
    /// `PurchaseIntakeRule.decide`). Idempotent: a store transaction already recorded for the
    /// account answers its payment again (a later-signed statement updates expiry and revocation);
    /// one recorded for another account moves (every transaction of its original transaction, the
    /// transfer recorded) only as `TransferRule` allows: the claimant's account token, or signed data
    /// under `policy`; an id alone never moves it. A CloudEvent already answered keeps
    /// its first outcome. A pending payment of the same claim (`pendingPayment`, the event's, or the
    /// account's pending one for the same claimed transaction) is settled rather than duplicated.
    /// Consumables are credited once, when first recorded and not revoked.
    ///
    /// `catalog` lets `transfer-if-inactive` tell whether the current owner's subscriptions are active.
    public func record(_ intake: PurchaseIntake, verified: VerifiedPurchase, environment: CommerceEnvironment, policy: TransferPolicy,
                       catalog: CommerceCatalogState?, pendingPayment: UUID? = nil) async throws -> IntakeOutcome {
        let claim = intake.claim
        let at = now()
        let key = "purchase:\(claim.app)|\(claim.store.rawValue)|\(verified.originalTransactionId)"
        return try await write(app: claim.app, key: key) { sql, changes in
            var pending = pendingPayment
            if let event = intake.event, let linked = try await Self.linkedPayment(event, on: sql), linked != pending {
                guard let payment = try await Self.payment(linked, on: sql) else { throw PurchaseStoreError("event link without payment") }
                // A duplicate that raced the first copy: the first outcome stands, unless it is still pending.
                guard payment.status == .pending, payment.accountId == intake.account else { return IntakeOutcome(payment) }
                pending = linked
            }
            if pending == nil {
                pending = try await sql.raw("""
                    SELECT id FROM purchases WHERE account_id = \(bind: intake.account) AND app = \(bind: claim.app)
                    AND store = \(bind: claim.store.rawValue) AND claimed_transaction_id = \(bind: claim.transactionId)
                    AND status = \(bind: PurchaseStatus.pending.rawValue) LIMIT 1
                    """).first()?.decode(column: "id", as: UUID.self)
            }

            // What the purchase continues (an earlier period, the purchase it replaces), for its events.
            let previous = try await Self.anchor(of: verified, app: claim.app, on: sql)
            var transferred = false
            // Ownership follows the original transaction.
            let owner = try await sql.raw("""
                SELECT account_id FROM purchases WHERE app = \(bind: claim.app) AND store = \(bind: claim.store.rawValue)
                AND original_transaction_id = \(bind: verified.originalTransactionId) AND status = \(bind: PurchaseStatus.granted.rawValue)
                ORDER BY updated_at DESC LIMIT 1
                """).first()?.decode(column: "account_id", as: UUID.self)
            if let owner, owner != intake.account {
                let decision: TransferDecision
                if intake.product.type == .consumable {
                    // A consumable was credited to its first buyer once; it never moves.
                    decision = .keep(owner: owner)
                } else {
                    let active = policy == .transferIfInactive
                        ? try await Self.hasActiveSubscription(account: owner, app: claim.app, catalog: catalog, at: at, on: sql) : false
                    decision = TransferRule.decide(policy: policy, owner: owner, claimant: intake.account, ownerHasActiveSubscription: active,
                                                   proofOfPossession: claim.hasProofOfPossession, accountToken: intake.accountToken)
                }
                switch decision {
                case .alreadyOwned:
                    break
                case .keep:
                    let why = claim.hasProofOfPossession || intake.accountToken != .unknown
                        ? "transfer policy \(policy.rawValue)" : "a transaction id alone never moves a purchase; present the signed purchase"
                    let refusal = PurchaseRefusal.ownedByAnotherAccount(
                        "This \(claim.store.rawValue) transaction belongs to another account (\(why)).")
                    if let pending {
                        try await Self.refuse(pending, refusal, at: at, on: sql)
                        changes.accounts.insert(intake.account)
                    }
                    if let pending, let event = intake.event { try await Self.link(event, to: pending, at: at, on: sql) }
                    return .refused(paymentId: pending, refusal)
                case .transfer(let from):
                    try await sql.raw("""
                        UPDATE purchases SET account_id = \(bind: intake.account), updated_at = \(bind: at)
                        WHERE app = \(bind: claim.app) AND store = \(bind: claim.store.rawValue)
                        AND original_transaction_id = \(bind: verified.originalTransactionId) AND status = \(bind: PurchaseStatus.granted.rawValue)
                        """).run()
                    try await sql.insert(into: "purchase_transfers")
                        .columns("id", "app", "store", "original_transaction_id", "from_account_id", "to_account_id", "transferred_at")
                        .values(SQLBind(UUID()), SQLBind(claim.app), SQLBind(claim.store.rawValue), SQLBind(verified.originalTransactionId),
                                SQLBind(from), SQLBind(intake.account), SQLBind(at))
                        .run()
                    changes.accounts.formUnion([from, intake.account])
                    transferred = true
                }
            }

            let existing = try await sql.raw("""
                SELECT \(unsafeRaw: StoredPurchase.columns) FROM purchases
                WHERE app = \(bind: claim.app) AND store = \(bind: claim.store.rawValue) AND transaction_id = \(bind: verified.transactionId)
                """).first().map(StoredPurchase.decode)
            let paymentId: UUID
            if let existing {
                paymentId = existing.paymentId
                if existing.signedDate.map({ $0 < verified.signedDate }) ?? true {
                    try await Self.update(existing, with: verified, at: at, on: sql)
                    try await Self.writeLifecycle(existing.paymentId, verified, type: existing.productType, at: at, on: sql)
                    if let updated = try await Self.payment(existing.paymentId, on: sql) {
                        _ = try await Self.recordEvents(before: Self.facts(existing), after: verified, payment: updated, source: .intake,
                                                        at: at, on: sql)
                    }
                    changes.accounts.insert(existing.accountId)
                }
                if let pending, pending != existing.paymentId {
                    // The same transaction was recorded under another payment meanwhile: that one answers for both.
                    try await sql.raw("UPDATE purchase_events SET payment_id = \(bind: existing.paymentId) WHERE payment_id = \(bind: pending)").run()
                    try await sql.raw("DELETE FROM purchases WHERE id = \(bind: pending)").run()
                }
            } else {
                if let pending {
                    paymentId = pending
                    try await Self.settle(pending, intake: intake, verified: verified, environment: environment, at: at, on: sql)
                } else {
                    paymentId = UUID()
                    try await Self.insert(paymentId, intake: intake, verified: verified, environment: environment, at: at, on: sql)
                }
                if intake.product.type == .consumable, verified.revocationDate == nil {
                    try await Self.credit(account: intake.account, app: claim.app, productId: intake.product.id, environment: environment,
                                          by: max(1, verified.quantity), on: sql)
                }
                try await Self.writeLifecycle(paymentId, verified, type: intake.product.type, at: at, on: sql)
                if let previous, previous.paymentId != paymentId, previous.accountId == intake.account,
                   (previous.purchaseDate ?? .distantPast) < verified.purchaseDate {
                    try await Self.endEarlierPeriod(previous, at: verified.purchaseDate, on: sql)
                }
                if let recorded = try await Self.payment(paymentId, on: sql) {
                    _ = try await Self.recordNewTransactionEvents(previous: previous, after: verified, payment: recorded, source: .intake,
                                                                  at: at, on: sql)
                }
                changes.accounts.insert(intake.account)
            }
            if transferred, let moved = try await Self.payment(paymentId, on: sql) {
                try await Self.recordEvent(.transfer, about: moved, source: .intake,
                                           dedup: "\(claim.store.rawValue)|\(verified.originalTransactionId)|\(intake.account.uuidString.lowercased())|\(Int64(at.timeIntervalSince1970 * 1000))",
                                           at: at, on: sql)
            }
            if let event = intake.event { try await Self.link(event, to: paymentId, at: at, on: sql) }
            return .granted(paymentId: paymentId)
        }
    }

    /// Records a purchase whose verdict did not come in time (the store is slow or down): it waits,
    /// with the receipt, for the pending worker. A CloudEvent already answered, or a pending payment
    /// of the account for the same claimed transaction, answers that payment instead.
    public func recordPending(_ intake: PurchaseIntake) async throws -> IntakeOutcome {
        let claim = intake.claim
        let at = now()
        let key = "pending:\(claim.app)|\(claim.store.rawValue)|\(claim.transactionId)"
        return try await write(app: claim.app, key: key) { sql, changes in
            if let event = intake.event, let linked = try await Self.linkedPayment(event, on: sql),
               let payment = try await Self.payment(linked, on: sql) {
                return IntakeOutcome(payment)
            }
            if let waiting = try await sql.raw("""
                SELECT id FROM purchases WHERE account_id = \(bind: intake.account) AND app = \(bind: claim.app)
                AND store = \(bind: claim.store.rawValue) AND claimed_transaction_id = \(bind: claim.transactionId)
                AND status = \(bind: PurchaseStatus.pending.rawValue) LIMIT 1
                """).first()?.decode(column: "id", as: UUID.self) {
                if let event = intake.event { try await Self.link(event, to: waiting, at: at, on: sql) }
                return .pending(paymentId: waiting)
            }
            let id = UUID()
            try await sql.insert(into: "purchases")
                .columns("id", "app", "account_id", "store", "status", "product_id", "store_product_id", "claimed_transaction_id",
                         "user_id", "receipt", "product_type", "quantity", "attempts", "next_attempt_at", "created_at", "updated_at")
                .values(SQLBind(id), SQLBind(claim.app), SQLBind(intake.account), SQLBind(claim.store.rawValue),
                        SQLBind(PurchaseStatus.pending.rawValue), SQLBind(intake.product.id), SQLBind(claim.storeProductId),
                        SQLBind(claim.transactionId), SQLBind(claim.userId), SQLBind(claim.receipt), SQLBind(intake.product.type.rawValue),
                        SQLBind(1), SQLBind(0), SQLBind(at), SQLBind(at), SQLBind(at))
                .run()
            if let event = intake.event { try await Self.link(event, to: id, at: at, on: sql) }
            changes.accounts.insert(intake.account)
            return .pending(paymentId: id)
        }
    }

    /// Refuses a pending purchase (the store's verdict, or the intake rule's on it).
    public func refusePending(_ id: UUID, app: String, _ refusal: PurchaseRefusal) async throws {
        let at = now()
        try await write(app: app, key: "payment:\(id.uuidString)") { sql, changes in
            if let payment = try await Self.payment(id, on: sql), payment.status == .pending {
                try await Self.refuse(id, refusal, at: at, on: sql)
                changes.accounts.insert(payment.accountId)
            }
        }
    }

    // MARK: Statements

    static func link(_ event: PurchaseEventKey, to payment: UUID, at: Date, on sql: any SQLDatabase) async throws {
        try await sql.insert(into: "purchase_events").columns("id", "app", "source", "event_id", "payment_id", "created_at")
            .values(SQLBind(UUID()), SQLBind(event.app), SQLBind(event.source), SQLBind(event.id), SQLBind(payment), SQLBind(at))
            .ignoringConflicts(with: ["app", "source", "event_id"])
            .run()
    }

    static func refuse(_ id: UUID, _ refusal: PurchaseRefusal, at: Date, on sql: any SQLDatabase) async throws {
        try await sql.update("purchases")
            .set("status", to: PurchaseStatus.refused.rawValue).set("refusal_code", to: refusal.code)
            .set("refusal_detail", to: String(refusal.detail.prefix(1000))).set("receipt", to: SQLLiteral.null)
            .set("next_attempt_at", to: SQLLiteral.null).set("updated_at", to: at)
            .where("id", .equal, id).where("status", .equal, PurchaseStatus.pending.rawValue)
            .run()
    }

    static func insert(_ id: UUID, intake: PurchaseIntake, verified: VerifiedPurchase, environment: CommerceEnvironment, at: Date,
                       on sql: any SQLDatabase) async throws {
        let claim = intake.claim
        try await sql.insert(into: "purchases")
            .columns("id", "app", "account_id", "store", "status", "environment", "product_id", "store_product_id", "claimed_transaction_id",
                     "user_id", "transaction_id", "original_transaction_id", "product_type", "purchase_date", "original_purchase_date",
                     "expires_date", "revoked_at", "revocation_reason", "quantity", "ownership_type", "signed_date", "attempts",
                     "created_at", "updated_at", "price_milliunits", "currency", "country")
            .values(SQLBind(id), SQLBind(claim.app), SQLBind(intake.account), SQLBind(claim.store.rawValue),
                    SQLBind(PurchaseStatus.granted.rawValue), SQLBind(environment.rawValue), SQLBind(intake.product.id),
                    SQLBind(verified.storeProductId), SQLBind(claim.transactionId), SQLBind(claim.userId), SQLBind(verified.transactionId),
                    SQLBind(verified.originalTransactionId), SQLBind(intake.product.type.rawValue), SQLBind(verified.purchaseDate),
                    SQLBind(verified.originalPurchaseDate), SQLBind(verified.expiresDate), SQLBind(verified.revocationDate),
                    SQLBind(verified.revocationReason), SQLBind(max(1, verified.quantity)), SQLBind(verified.ownershipType),
                    SQLBind(verified.signedDate), SQLBind(0), SQLBind(at), SQLBind(at), SQLBind(verified.price), SQLBind(verified.currency),
                    SQLBind(verified.country))
            .run()
    }

    static func settle(_ id: UUID, intake: PurchaseIntake, verified: VerifiedPurchase, environment: CommerceEnvironment, at: Date,
                       on sql: any SQLDatabase) async throws {
        try await sql.update("purchases")
            .set("status", to: PurchaseStatus.granted.rawValue).set("environment", to: environment.rawValue)
            .set("account_id", to: intake.account)
            .set("store_product_id", to: verified.storeProductId).set("transaction_id", to: verified.transactionId)
            .set("original_transaction_id", to: verified.originalTransactionId).set("purchase_date", to: verified.purchaseDate)
            .set("original_purchase_date", to: SQLBind(verified.originalPurchaseDate)).set("expires_date", to: SQLBind(verified.expiresDate))
            .set("revoked_at", to: SQLBind(verified.revocationDate)).set("revocation_reason", to: SQLBind(verified.revocationReason))
            .set("quantity", to: max(1, verified.quantity)).set("ownership_type", to: verified.ownershipType)
            .set("signed_date", to: verified.signedDate).set("receipt", to: SQLLiteral.null).set("next_attempt_at", to: SQLLiteral.null)
            .set("last_error", to: SQLLiteral.null).set("updated_at", to: at)
            .set("price_milliunits", to: SQLBind(verified.price)).set("currency", to: SQLBind(verified.currency))
            .set("country", to: SQLBind(verified.country))
            .where("id", .equal, id)
            .run()
    }

    /// A later-signed statement of a recorded transaction: its expiry, revocation, quantity and ownership win.
    static func update(_ existing: StoredPurchase, with verified: VerifiedPurchase, at: Date, on sql: any SQLDatabase) async throws {
        try await sql.update("purchases")
            .set("expires_date", to: SQLBind(verified.expiresDate)).set("revoked_at", to: SQLBind(existing.revokedAt ?? verified.revocationDate))
            .set("revocation_reason", to: SQLBind(existing.revocationReason ?? verified.revocationReason))
            .set("ownership_type", to: verified.ownershipType).set("signed_date", to: verified.signedDate)
            .set("updated_at", to: at)
            // A price once stated stays; a later statement fills one that was unknown.
            .set(SQLIdentifier("price_milliunits"), to: SQLFunction("COALESCE", args: SQLIdentifier("price_milliunits"), SQLBind(verified.price)))
            .set(SQLIdentifier("currency"), to: SQLFunction("COALESCE", args: SQLIdentifier("currency"), SQLBind(verified.currency)))
            // The country the purchase was made in stays too (a later statement fills an unknown one).
            .set(SQLIdentifier("country"), to: SQLFunction("COALESCE", args: SQLIdentifier("country"), SQLBind(verified.country)))
            .where("id", .equal, existing.paymentId)
            .run()
        if existing.revokedAt == nil, verified.revocationDate != nil {
            try await takeBackRefunded(existing, on: sql)
        }
    }

    static func credit(account: UUID, app: String, productId: String, environment: CommerceEnvironment, by amount: Int,
                       on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            INSERT INTO consumable_balances (id, app, account_id, product_id, environment, balance)
            VALUES (\(bind: UUID()), \(bind: app), \(bind: account), \(bind: productId), \(bind: environment.rawValue), \(bind: Int64(amount)))
            ON CONFLICT (app, account_id, product_id, environment) DO UPDATE SET balance = consumable_balances.balance + excluded.balance
            """).run()
    }

    /// Whether the account has an active subscription (auto-renewable or non-renewing) in the app now.
    static func hasActiveSubscription(account: UUID, app: String, catalog: CommerceCatalogState?, at: Date, on sql: any SQLDatabase) async throws -> Bool {
        let subscriptions = try await grantedRecords(account: account, app: app, on: sql).filter { $0.type.isSubscription }
        let snapshot = EntitlementEngine.evaluate(subscriptions, catalog: catalog, environments: Set(CommerceEnvironment.allCases), at: at)
        return !snapshot.activePurchases.isEmpty
    }
}
