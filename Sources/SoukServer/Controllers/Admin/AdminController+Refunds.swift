import Foundation
import Hummingbird
import SoukCore
import SoukIntegrations
import SoukStore

/// Refunding a person's app order through the processor that took the payment (operators only).
/// Development orders are refunded at once. Stripe orders are asked of Stripe (`POST /v1/refunds`,
/// one idempotency key per order, so a repeated click refunds once); the order changes when Stripe's
/// `charge.refunded` webhook arrives, as for a refund made in Stripe's dashboard. If Stripe cannot
/// be reached, nothing is refunded and the page says so. The app goes at its next license renewal.
extension AdminController {
    func addRefundRoutes(to router: Router<Context>) {
        router.post("admin/people/:id/orders/:order/refund", use: refundOrder)
    }

    @Sendable func refundOrder(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await gate.form(request, context: context, operatorOnly: true)
        let account = try await requirePerson(context)
        let accountID = try account.requireID()
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
            guard let stripe = runtime.stripeClient() else {
                return try await page(error: "Stripe is not configured on this server, so the refund cannot be made here.", notice: nil,
                                      status: .serviceUnavailable)
            }
            do {
                let refund = try await stripe.refund(paymentIntent: paymentRef, idempotencyKey: "souk-refund-\(order.id.uuidString.lowercased())")
                try await audit.record(actor: session.actor, action: "order.refund", target: target,
                                       before: ["order": order.id.uuidString.lowercased(), "status": order.status.rawValue],
                                       after: ["order": order.id.uuidString.lowercased(), "processor": "stripe", "amount": price,
                                               "refund": refund, "status": "requested"])
                return try await page(error: nil, notice: "Refund of \(price) requested at Stripe (\(refund)); the order shows refunded when Stripe confirms it.",
                                      status: .ok)
            } catch is StoreFault {
                return try await page(error: "Stripe could not be reached: nothing was refunded. Try again in a moment.", notice: nil,
                                      status: .serviceUnavailable)
            } catch let refused as StripeRequestError {
                return try await page(error: "Stripe refused the refund (\(refused.status)): \(refused.message)", notice: nil, status: .conflict)
            }
        default:
            guard try await orders.refund(processor: order.processor, paymentRef: paymentRef, amount: amount) != nil else {
                return try await page(error: "The order changed meanwhile; reload the page.", notice: nil, status: .conflict)
            }
            try await audit.record(actor: session.actor, action: "order.refund", target: target,
                                   before: ["order": order.id.uuidString.lowercased(), "status": "paid"],
                                   after: ["order": order.id.uuidString.lowercased(), "processor": order.processor, "amount": price, "status": "refunded"])
            return try await page(error: nil, notice: "Refunded \(price). The app stops at its next license renewal.", status: .ok)
        }
    }
}
