import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Refunds a person's app order or membership plan (the marketplace's own sales) through the
/// processor that took the payment: the one path of the operator's console and `souk accounts
/// refund`. `AccountScope` decides first (`refund`: operators, on a lower role); an id selects only
/// an order or plan of that person.
///
/// - A development order or plan is refunded at once.
/// - A Stripe one is asked of Stripe (`POST /v1/refunds`, one idempotency key per order or per plan
///   and invoice, so a repeated request refunds once); the order or plan changes when Stripe's
///   `charge.refunded` webhook arrives, as for a refund made in Stripe's dashboard (docs/selling.md).
///   If Stripe cannot be reached, nothing is refunded and the failure says so.
///
/// Each refund writes its audit entry (`order.refund`, `plan.refund`) with the actor it was given.
package struct RefundMarketplaceSale: Sendable {
    package let database: SoukDatabase
    /// The purchase store that tells this process's entitlement index what each write changed.
    package let purchases: PurchaseStore
    /// Stripe when it is the payment processor; nil when a Stripe refund cannot be made here.
    package let stripe: StripeClient?
    package let now: @Sendable () -> Date

    package init(database: SoukDatabase, purchases: PurchaseStore, stripe: StripeClient?, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.purchases = purchases
        self.stripe = stripe
        self.now = now
    }

    package init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date = Date.init) {
        self.init(database: runtime.database, purchases: runtime.purchases, stripe: runtime.stripeClient(), now: now)
    }

    /// What a refund did, in words for the person who asked.
    package struct Done: Sendable, Equatable {
        package var message: String
        /// Stripe's refund id when the refund was asked of Stripe (the sale changes when Stripe confirms it).
        package var stripeRefund: String?
    }

    /// Why nothing was refunded. Each face words the kind: the console as a status (404, 409, 503),
    /// the commands as `Error: …` with exit code 1.
    package struct Failure: Error, Equatable, Sendable {
        package enum Kind: Sendable { case notFound, conflict, unavailable }
        package var kind: Kind
        package var message: String
    }

    var audit: AuditLog { AuditLog(database: database, now: now) }

    /// Refunds `orderId`, an app order of `person`: only a paid one.
    package func refundOrder(_ orderId: UUID?, of person: AccountRecord, actor: SoukActor) async throws -> Done {
        try await AccountScope(audit: audit).check(.refund, actor: actor, on: person)
        let orders = MarketplaceOrderStore(database: database)
        guard let orderId, let order = try await orders.order(orderId), order.accountId == person.id else {
            throw Failure(kind: .notFound, message: "This person has no order with this id.")
        }
        guard order.status == .paid, let paymentRef = try await orders.paymentRef(orderId) else {
            throw Failure(kind: .conflict, message: "Only a paid order can be refunded; this one is \(order.status.rawValue).")
        }
        let amount = order.amountPaid ?? order.price.amount
        let price = Price(currency: order.price.currency, amount: amount).formatted
        let orderText = order.id.uuidString.lowercased()
        if order.processor == "stripe" {
            let refund = try await stripeRefund(paymentIntent: paymentRef, idempotencyKey: "souk-refund-\(orderText)",
                                                actor: actor, action: .orderRefund, target: person.auditTarget,
                                                before: ["order": orderText, "status": order.status.rawValue],
                                                after: ["order": orderText, "processor": "stripe", "amount": price])
            return Done(message: "Refund of \(price) requested at Stripe (\(refund)); the order shows refunded when Stripe confirms it.",
                        stripeRefund: refund)
        }
        guard try await orders.refund(processor: order.processor, paymentRef: paymentRef, amount: amount) != nil else {
            throw Failure(kind: .conflict, message: "The order changed meanwhile; look at it again.")
        }
        try await audit.record(actor: actor, action: .orderRefund, target: person.auditTarget,
                               before: ["order": orderText, "status": "paid"],
                               after: ["order": orderText, "processor": order.processor, "amount": price, "status": "refunded"])
        return Done(message: "Refunded \(price). The app stops at its next license renewal.", stripeRefund: nil)
    }

    /// Refunds `planId`, a membership plan of `person`: a Stripe plan's latest charge, or a
    /// development plan at once (it ends now and does not renew).
    package func refundPlan(_ planId: UUID?, of person: AccountRecord, actor: SoukActor) async throws -> Done {
        try await AccountScope(audit: audit).check(.refund, actor: actor, on: person)
        let plans = MarketplaceSubscriptionStore(purchases: purchases)
        guard let planId, let plan = try await plans.subscriptions(account: person.id).first(where: { $0.id == planId }) else {
            throw Failure(kind: .notFound, message: "This person has no plan with this id.")
        }
        let planText = plan.id.uuidString.lowercased()
        if plan.processor == "stripe" {
            guard let payment = try await plans.latestPayment(planId, account: person.id) else {
                throw Failure(kind: .conflict, message: "Stripe has not charged this plan yet: there is nothing to refund.")
            }
            let refund = try await stripeRefund(paymentIntent: payment.paymentRef, idempotencyKey: "souk-refund-\(planText)-\(payment.invoice)",
                                                actor: actor, action: .planRefund, target: person.auditTarget,
                                                before: ["plan": planText, "state": plan.state.rawValue],
                                                after: ["plan": planText, "processor": "stripe", "invoice": payment.invoice])
            return Done(message: "Refund of the plan's last charge requested at Stripe (\(refund)); the plan ends when Stripe confirms it.",
                        stripeRefund: refund)
        }
        guard let revoked = try await plans.revoke(planId, account: person.id) else {
            throw Failure(kind: .conflict, message: "This plan is already over; there is nothing to refund.")
        }
        try await audit.record(actor: actor, action: .planRefund, target: person.auditTarget,
                               before: ["plan": planText, "state": plan.state.rawValue],
                               after: ["plan": planText, "processor": plan.processor, "state": revoked.state.rawValue])
        return Done(message: "Plan refunded: it ends now and does not renew.", stripeRefund: nil)
    }

    /// Asks Stripe to refund `paymentIntent` once (`idempotencyKey`: a repeated request finds the
    /// same refund), audits the request, and answers the refund's id. No answer from Stripe refunds
    /// nothing (`unavailable`); a refusal is a `conflict` worded as Stripe gave it.
    private func stripeRefund(paymentIntent: String, idempotencyKey: String, actor: SoukActor, action: AuditAction, target: String,
                              before: [String: String], after: [String: String]) async throws -> String {
        guard let stripe else {
            throw Failure(kind: .unavailable, message: "Stripe is not configured on this server, so the refund cannot be made here.")
        }
        let refund: String
        do {
            refund = try await stripe.refund(paymentIntent: paymentIntent, idempotencyKey: idempotencyKey)
        } catch is StoreFault {
            throw Failure(kind: .unavailable, message: "Stripe could not be reached: nothing was refunded. Try again in a moment.")
        } catch let refused as StripeRequestError {
            throw Failure(kind: .conflict, message: "Stripe refused the refund (\(refused.status)): \(refused.message)")
        }
        var requested = after
        requested["refund"] = refund
        requested["status"] = "requested"
        try await audit.record(actor: actor, action: action, target: target, before: before, after: requested)
        return refund
    }
}
