import Foundation
import SQLKit
import SoukCore

/// What Apple states about a purchase beyond its lifecycle (docs/stores.md): a refund's extent and
/// a subscription's billing plan.
public struct ApplePurchaseTerms: Sendable, Equatable {
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
    public var refundType: String?
    /// Milliunits of a percent (100000 is all).
    public var refundShare: Int?
    /// Milli-units of the purchase's currency.
    public var refundedAmount: Int64?
    /// `BILLED_UPFRONT` or `MONTHLY`.
    public var billingPlanType: String?
    /// Apple's `commitmentInfo`, as JSON.
    public var commitmentInfo: String?

    public init(refundType: String? = nil, refundShare: Int? = nil, refundedAmount: Int64? = nil, billingPlanType: String? = nil,
                commitmentInfo: String? = nil) {
        self.refundType = refundType
        self.refundShare = refundShare
        self.refundedAmount = refundedAmount
        self.billingPlanType = billingPlanType
        self.commitmentInfo = commitmentInfo
    }

    public var isEmpty: Bool { self == ApplePurchaseTerms() }
}

extension PurchaseStore {
    /// Keeps what Apple stated on the purchase with this transaction id (the values given; nil
    /// leaves a column as it was). These columns grant nothing: access follows the lifecycle.
    public func recordAppleTerms(app: String, transactionId: String, _ terms: ApplePurchaseTerms) async throws {
        guard !terms.isEmpty else { return }
        var update = database.sql.update("purchases")
        if let value = terms.refundType { update = update.set("refund_type", to: value) }
        if let value = terms.refundShare { update = update.set("refund_share", to: value) }
        if let value = terms.refundedAmount { update = update.set("refunded_amount", to: value) }
        if let value = terms.billingPlanType { update = update.set("billing_plan_type", to: value) }
        if let value = terms.commitmentInfo { update = update.set("commitment_info", to: value) }
        try await update.where("app", .equal, app).where("store", .equal, CommerceStore.appleStore.rawValue)
            .where("transaction_id", .equal, transactionId).run()
    }

    /// What Apple stated about a payment (empty when nothing).
    public func appleTerms(_ paymentId: UUID) async throws -> ApplePurchaseTerms {
        guard let row = try await database.sql.raw("""
            SELECT refund_type, refund_share, refunded_amount, billing_plan_type, commitment_info FROM purchases WHERE id = \(bind: paymentId)
            """).first() else { return ApplePurchaseTerms() }
        return ApplePurchaseTerms(refundType: try row.decode(column: "refund_type", as: String?.self),
                                  refundShare: try row.decode(column: "refund_share", as: Int?.self),
                                  refundedAmount: try row.decode(column: "refunded_amount", as: Int64?.self),
                                  billingPlanType: try row.decode(column: "billing_plan_type", as: String?.self),
                                  commitmentInfo: try row.decode(column: "commitment_info", as: String?.self))
    }

    /// The purchase of the app with this store transaction id, nil when Souk holds none.
    public func purchase(app: String, store: CommerceStore, transactionId: String) async throws -> StoredPurchase? {
        try await Self.purchase(app: app, store: store, transactionId: transactionId, on: database.sql)
    }

    /// The used share of a granted consumable (`ConsumedShare`, first in, first out over the
    /// account's unrevoked purchases of the product); nil for other purchases.
    public func consumedShare(of purchase: StoredPurchase) async throws -> Int? {
        guard purchase.productType == .consumable, purchase.status == .granted, purchase.revokedAt == nil,
              let environment = purchase.environment else { return nil }
        let counted = try await list(account: purchase.accountId, app: purchase.app).filter {
            $0.productId == purchase.productId && $0.environment == environment && $0.status == .granted && $0.revokedAt == nil
        }.sorted { ($0.purchaseDate ?? $0.createdAt, $0.createdAt) < ($1.purchaseDate ?? $1.createdAt, $1.createdAt) }
        guard let index = counted.firstIndex(where: { $0.paymentId == purchase.paymentId }) else { return nil }
        let balance = try await balances(account: purchase.accountId, app: purchase.app)
            .first { $0.productId == purchase.productId && $0.environment == environment }?.balance ?? 0
        return ConsumedShare.milliunits(quantities: counted.map { max(1, $0.quantity) }, index: index, balance: balance)
    }
}

extension PurchaseStore {
    /// A renewal date the store moved on the operator's request (Apple's Extend a Subscription
    /// Renewal Date answers the new expiry): recorded as the store's statement signed now, so the
    /// entitlement follows at once and the change is an operator event.
    public func moveExpiry(_ paymentId: UUID, to expiresDate: Date, catalog: CommerceCatalogState?) async throws -> LifecycleApplyOutcome {
        guard let purchase = try await payment(paymentId) else { return .unknownPurchase }
        var statement = Self.statement(of: purchase)
        statement.expiresDate = expiresDate
        statement.signedDate = max(now(), (purchase.signedDate ?? .distantPast).addingTimeInterval(0.001))
        if var lifecycle = statement.lifecycle, expiresDate > now(), [.expired, .gracePeriod, .billingRetry].contains(lifecycle.state) {
            lifecycle.state = purchase.willRenew == false ? .cancelled : .active
            lifecycle.graceExpiresDate = nil
            statement.lifecycle = lifecycle
        }
        return try await apply(statement, app: purchase.app, source: .operator, catalog: catalog)
    }
}
