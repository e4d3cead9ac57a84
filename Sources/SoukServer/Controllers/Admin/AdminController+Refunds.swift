import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// Refunding a person's app order or membership plan through the processor that took the payment,
/// or a Google Play in-app purchase at Google (operators only).
/// Development orders are refunded at once. Stripe orders are asked of Stripe (`POST /v1/refunds`,
/// one idempotency key per order, so a repeated click refunds once); the order changes when Stripe's
/// `charge.refunded` webhook arrives, as for a refund made in Stripe's dashboard. If Stripe cannot
/// be reached, nothing is refunded and the page says so. The app goes at its next license renewal.
extension AdminController {
    func addRefundRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.post("people/:id/orders/:order/refund", use: refundOrder)
        routes.staff.post("people/:id/plans/:plan/refund", use: refundPlan)
        routes.staff.post("people/:id/purchases/:payment/refund", use: refundPurchase)
    }

    /// Refunds a person's Google Play purchase at Google (operators), as `souk purchases refund`
    /// does (`StoreRefunds`): `orders.refund` for a one-time product, `purchases.subscriptionsv2.revoke`
    /// for a subscription (`prorated=on`: the unused time only). Access ends when Google confirms
    /// it; no answer from Google refunds nothing (503), a refusal is shown as Google gave it (502).
    @Sendable func refundPurchase(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        try await authorize(.refund, session: session, on: account)
        guard let paymentId = context.parameters.get("payment").flatMap(UUID.init(uuidString:)) else {
            throw Problem(.notFound, "This person has no purchase with this id.")
        }
        let refunds = runtime.storeRefunds(verifiers: try storeVerifiers ?? runtime.storeVerifiers())
        let prorated = ["on", "true", "1"].contains(form["prorated"] ?? "")
        func page(error: String?, notice: String?, status: HTTPResponse.Status) async throws -> Response {
            try await personPage(session: session, account: account, notice: notice, error: error, status: status)
        }
        switch try await refunds.refund(paymentId, prorated: prorated, actor: session.actor, account: account.id) {
        case .success(.revoked(let payment, let method)):
            return try await page(error: nil, notice: "Refunded \(payment.productId) at Google Play (\(method)); Google confirms it, so access ended.",
                                  status: .ok)
        case .success(.requested(let payment, let method)):
            return try await page(error: nil, notice: "Refund of \(payment.productId) requested at Google Play (\(method)); access ends when Google confirms it.",
                                  status: .ok)
        case .failure(let failure):
            switch failure.kind {
            case .notFound: throw Problem(.notFound, "This person has no purchase with this id.")
            case .conflict: return try await page(error: failure.message, notice: nil, status: .conflict)
            case .badRequest: return try await page(error: failure.message, notice: nil, status: .badRequest)
            case .unavailable: return try await page(error: failure.message, notice: nil, status: .serviceUnavailable)
            case .refused: return try await page(error: failure.message, notice: nil, status: .badGateway)
            }
        }
    }

    @Sendable func refundOrder(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        try await authorize(.refund, session: session, on: account)
        let accountID = account.id
        let orders = MarketplaceOrderStore(database: runtime.database)
        // An order id selects only an order of this person.
        guard let orderId = context.parameters.get("order").flatMap(UUID.init(uuidString:)), let order = try await orders.order(orderId),
              order.accountId == accountID else {
            throw Problem(.notFound, "This person has no order with this id.")
        }
        func page(error: String?, notice: String?, status: HTTPResponse.Status) async throws -> Response {
            try await personPage(session: session, account: account, notice: notice, error: error, status: status)
        }
        guard order.status == .paid, let paymentRef = try await orders.paymentRef(orderId) else {
            return try await page(error: "Only a paid order can be refunded; this one is \(order.status.rawValue).", notice: nil, status: .conflict)
        }
        let amount = order.amountPaid ?? order.price.amount
        let price = Price(currency: order.price.currency, amount: amount).formatted
        let target = "account:\(accountID.uuidString.lowercased())"
        switch order.processor {
        case "stripe":
            return try await stripeRefund(paymentIntent: paymentRef, idempotencyKey: "souk-refund-\(order.id.uuidString.lowercased())",
                                          actor: session.actor, action: .orderRefund, target: target,
                                          before: ["order": order.id.uuidString.lowercased(), "status": order.status.rawValue],
                                          after: ["order": order.id.uuidString.lowercased(), "processor": "stripe", "amount": price],
                                          notice: { "Refund of \(price) requested at Stripe (\($0)); the order shows refunded when Stripe confirms it." },
                                          page: page)
        default:
            guard try await orders.refund(processor: order.processor, paymentRef: paymentRef, amount: amount) != nil else {
                return try await page(error: "The order changed meanwhile; reload the page.", notice: nil, status: .conflict)
            }
            try await audit.record(actor: session.actor, action: .orderRefund, target: target,
                                   before: ["order": order.id.uuidString.lowercased(), "status": "paid"],
                                   after: ["order": order.id.uuidString.lowercased(), "processor": order.processor, "amount": price, "status": "refunded"])
            return try await page(error: nil, notice: "Refunded \(price). The app stops at its next license renewal.", status: .ok)
        }
    }

    /// Refunds a person's membership plan (operators): a Stripe plan's latest charge through
    /// `POST /v1/refunds` (its PaymentIntent; access ends when Stripe's `charge.refunded` arrives,
    /// as docs/selling.md describes), a development plan at once.
    @Sendable func refundPlan(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        try await authorize(.refund, session: session, on: account)
        let accountID = account.id
        let plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
        // A plan id selects only a plan of this person.
        guard let planId = context.parameters.get("plan").flatMap(UUID.init(uuidString:)),
              let plan = try await plans.subscriptions(account: accountID).first(where: { $0.id == planId }) else {
            throw Problem(.notFound, "This person has no plan with this id.")
        }
        func page(error: String?, notice: String?, status: HTTPResponse.Status) async throws -> Response {
            try await personPage(session: session, account: account, notice: notice, error: error, status: status)
        }
        let target = "account:\(accountID.uuidString.lowercased())"
        let planText = plan.id.uuidString.lowercased()
        if plan.processor == "stripe" {
            guard let payment = try await plans.latestPayment(planId, account: accountID) else {
                return try await page(error: "Stripe has not charged this plan yet: there is nothing to refund.", notice: nil, status: .conflict)
            }
            return try await stripeRefund(paymentIntent: payment.paymentRef, idempotencyKey: "souk-refund-\(planText)-\(payment.invoice)",
                                          actor: session.actor, action: .planRefund, target: target, before: ["plan": planText, "state": plan.state.rawValue],
                                          after: ["plan": planText, "processor": "stripe", "invoice": payment.invoice],
                                          notice: { "Refund of the plan's last charge requested at Stripe (\($0)); the plan ends when Stripe confirms it." },
                                          page: page)
        }
        guard let revoked = try await plans.revoke(planId, account: accountID) else {
            return try await page(error: "This plan is already over; there is nothing to refund.", notice: nil, status: .conflict)
        }
        try await audit.record(actor: session.actor, action: .planRefund, target: target,
                               before: ["plan": planText, "state": plan.state.rawValue],
                               after: ["plan": planText, "processor": plan.processor, "state": revoked.state.rawValue])
        return try await page(error: nil, notice: "Plan refunded: it ends now and does not renew.", status: .ok)
    }

    /// Asks Stripe to refund `paymentIntent` once (`idempotencyKey`: a repeated click finds the same
    /// refund), audits the request, and answers the person's page with `notice(refund id)`. No
    /// answer from Stripe refunds nothing and says so (503); a refusal is shown as Stripe gave it.
    private func stripeRefund(paymentIntent: String, idempotencyKey: String, actor: String, action: AuditAction, target: String, before: [String: String],
                              after: [String: String], notice: (String) -> String,
                              page: (String?, String?, HTTPResponse.Status) async throws -> Response) async throws -> Response {
        guard let stripe = runtime.stripeClient() else {
            return try await page("Stripe is not configured on this server, so the refund cannot be made here.", nil, .serviceUnavailable)
        }
        do {
            let refund = try await stripe.refund(paymentIntent: paymentIntent, idempotencyKey: idempotencyKey)
            var requested = after
            requested["refund"] = refund
            requested["status"] = "requested"
            try await audit.record(actor: actor, action: action, target: target, before: before, after: requested)
            return try await page(nil, notice(refund), .ok)
        } catch is StoreFault {
            return try await page("Stripe could not be reached: nothing was refunded. Try again in a moment.", nil, .serviceUnavailable)
        } catch let refused as StripeRequestError {
            return try await page("Stripe refused the refund (\(refused.status)): \(refused.message)", nil, .conflict)
        }
    }
}
