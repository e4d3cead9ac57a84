import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// The marketplace's own sales (docs/selling.md):
///
/// - `POST /api/v1/checkout` (bearer): `{"appleItemId": "…", "currency": "EUR"?}` (an app) or
///   `{"productId": "…", "currency": "EUR"?}` (a membership plan), not both (`400`) → `201`
///   `{"url", "orderId"}`, the page the marketplace app's `confirmInstall` presents; asking again
///   while the order (or a plan's Stripe checkout) is open answers the same one. An app the account
///   already has, or a plan of a group it holds live or pending (billing retry included), is `409`
///   (`already-owned`, with `accountURL`); an app not sold on its own `422` (`not-for-sale`); with
///   `paymentProcessor` `none`, a sale to a production account is `503` (`payments-not-configured`,
///   without `Retry-After`: it lasts until the operator chooses a processor).
/// - `POST /webhooks/stripe`: Stripe's signed events (`Stripe-Signature`, 300 s tolerance).
///   `checkout.session.completed` with `payment_status` `paid`, or `async_payment_succeeded` (a
///   delayed payment method), pays the order or starts the plan (anything else grants nothing);
///   `async_payment_failed` fails the open order and `expired` cancels it (a pending plan goes),
///   so the next checkout makes a new one; a plan's `invoice.paid` extends it,
///   `invoice.payment_failed` puts it in billing retry, `customer.subscription.updated` follows
///   its renewal (and its end), `customer.subscription.deleted` ends it; `charge.refunded` refunds
///   the order (or the plan's invoice) when the whole charge is back, else records the partial
///   amount (the app or plan stays); other events are acknowledged. Replays change nothing. `404` while `stripeWebhookSecret` is unset (not an
///   outage: the endpoint is not there until it is configured; Stripe retries), `400` for a
///   missing or bad signature.
struct CheckoutController<Context: BearerRequestContext> {
    let bearer: BearerAuthenticator
    let checkout: CheckoutService
    let webhookSecret: String?

    static var maxBody: Int { 256 * 1024 }
    static var signatureHeader: HTTPField.Name { HTTPField.Name("Stripe-Signature")! }

    func addRoutes(to router: Router<Context>) {
        router.post("webhooks/stripe") { request, context in try await stripe(request, context) }
        addPersonRoutes(to: router.group().add(middleware: BearerMiddleware(authenticator: bearer)))
    }

    /// The person's own sales: every route of `router` (a group) needs a valid bearer token.
    private func addPersonRoutes(to router: RouterGroup<Context>) {
        router.post("api/v1/checkout") { request, context in try await start(request, context) }
        router.get("api/v1/purchases") { request, context in try await purchases(request, context) }
    }

    /// `GET /api/v1/purchases` (bearer): what the person bought from the marketplace, newest first —
    /// `{"kind": "purchase" | "renewal" | "refund", "appleItemId" (an app) or "productId" (a plan),
    /// "amount", "currency", "date", "environment"}`, amounts as the processor charged them (a
    /// refund, partial or full, its own entry: the total refunded, negative). Open, failed and
    /// cancelled orders, and pending plans, are not purchases.
    func purchases(_ request: Request, _ context: Context) async throws -> Response {
        let identity = try context.requireBearer(realm: bearer.realm)
        let receipts = try await Receipt.all(account: identity.accountID, orders: checkout.orders,
                                             plans: checkout.plans)
        return .json(receipts.map(\.json), cacheControl: "no-store")
    }

    struct CheckoutRequest: Decodable {
        var appleItemId: String?
        var productId: String?
        var currency: String?
    }

    func start(_ request: Request, _ context: Context) async throws -> Response {
        let identity = try context.requireBearer(realm: bearer.realm)
        guard let buyer = try await checkout.catalog.people.account(id: identity.accountID), !buyer.disabled else {
            throw BearerChallenge(status: .forbidden, realm: bearer.realm)
        }
        let body = try JSONDecoder().decode(CheckoutRequest.self, from: Data(buffer: try await request.collectBody(upTo: Self.maxBody)))
        let outcome: CheckoutService.Outcome
        do {
            if let productId = body.productId, body.appleItemId == nil {
                outcome = try await checkout.subscribe(productId: productId, currency: body.currency, buyer: buyer)
            } else {
                guard let text = body.appleItemId, body.productId == nil, let appleItemId = AppleID.parse(text) else {
                    throw Problem(.badRequest, "Give appleItemId (an app) or productId (a membership plan), not both.")
                }
                outcome = try await checkout.checkout(appleItemId: appleItemId, currency: body.currency, buyer: buyer)
            }
            switch outcome {
            case .subscription(let subscription):
                return .json(["url": subscription.checkoutURL ?? "\(checkout.publicURL)/account",
                              "orderId": subscription.id.uuidString.lowercased()], status: .created, cacheControl: "no-store")
            case .alreadyOwned:
                throw alreadyOwned("This account already has this app.")
            case .planHeld(let held):
                throw alreadyOwned("This account already has a plan of this group (\(held.productId)\(held.pending ? ", waiting for payment" : "")); "
                                   + "see it on the account page.")
            case .paymentsNotConfigured:
                // Not an outage that will pass: no Retry-After, so that no client polls for it.
                throw Problem(.serviceUnavailable, "This marketplace does not take payments yet: paid apps and plans are not for sale.",
                              type: "urn:souk:problem:payments-not-configured")
            case .notForSale(let detail):
                throw Problem(.unprocessableContent, detail, type: "urn:souk:problem:not-for-sale")
            case .order(let order):
                return .json(["url": order.url ?? "", "orderId": order.id.uuidString.lowercased()], status: .created, cacheControl: "no-store")
            }
        } catch CatalogError.notFound(let what) {
            throw Problem(.notFound, "No \(what) is for sale here.")
        } catch let refused as StripeRequestError {
            context.logger.error("Stripe refused a checkout", metadata: ["status": "\(refused.status)", "code": "\(refused.code ?? "-")"])
            throw Problem(.badGateway, "The payment processor refused to start the checkout. Try again later.")
        } catch let fault as StoreFault {
            context.logger.warning("payment processor gave no answer", metadata: ["fault": "\(fault.kind.rawValue)"])
            var problem = Problem(.serviceUnavailable, "The payment processor cannot be reached. Try again shortly.")
            problem.type = "urn:souk:problem:processor-unavailable"
            throw problem
        }
    }

    /// The `409` of something already held, with the account page where the person sees it.
    func alreadyOwned(_ detail: String) -> Problem {
        var problem = Problem(.conflict, detail, type: "urn:souk:problem:already-owned")
        problem.accountURL = "\(checkout.publicURL)/account"
        return problem
    }

    func stripe(_ request: Request, _ context: Context) async throws -> Response {
        // Unsigned is refused the same way whether or not the endpoint is configured.
        guard let signature = request.headers[Self.signatureHeader], !signature.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Problem(.badRequest, StripeWebhookError(.missingHeader).description)
        }
        guard let webhookSecret else {
            // Not an outage: nothing here can take the event until the operator sets the secret. Stripe retries.
            context.logger.error("Stripe webhook called but SOUK_STRIPE_WEBHOOK_SECRET is not set")
            throw Problem(.notFound, "Stripe webhooks are not configured on this server (stripeWebhookSecret).")
        }
        let payload = Array(buffer: try await request.collectBody(upTo: Self.maxBody))
        let result = Result { () throws(StripeWebhookError) -> StripeEvent in
            try StripeWebhook.verify(payload: payload, header: request.headers[Self.signatureHeader], secret: webhookSecret, now: Date())
        }
        let event: StripeEvent
        switch result {
        case .success(let verified): event = verified
        case .failure(let refusal):
            context.logger.warning("Stripe webhook refused", metadata: ["reason": "\(refusal.description)"])
            throw Problem(.badRequest, refusal.description)
        }
        let orders = checkout.orders
        let plans = checkout.plans
        var outcome = "ignored"
        // A signed event whose object Souk cannot read is refused (400) rather than failing (500):
        // Stripe would retry a 500 for days, and the same bytes would fail the same way.
        do {
            switch event.type {
            case "checkout.session.completed", "checkout.session.async_payment_succeeded":
                outcome = try await paid(try event.checkoutSession(), orders: orders, plans: plans)
            case "checkout.session.async_payment_failed":
                outcome = try await closed(try event.checkoutSession(), as: .failed, orders: orders, plans: plans)
            case "checkout.session.expired":
                outcome = try await closed(try event.checkoutSession(), as: .cancelled, orders: orders, plans: plans)
            case "invoice.paid":
                let invoice = try event.invoice()
                if let subscription = invoice.subscription,
                   try await plans.apply(.invoicePaid(stripeSubscription: subscription,
                                                      soukSubscription: invoice.subscriptionMetadata["souk_subscription"].flatMap(UUID.init(uuidString:)),
                                                      invoice: invoice.id, paymentIntent: invoice.paymentIntent, amount: invoice.amountPaid,
                                                      currency: invoice.currency ?? "usd", periodEnd: invoice.periodEnd,
                                                      renewal: invoice.billingReason == "subscription_cycle")) {
                    outcome = "paid until \(invoice.periodEnd.map(RFC3339.format) ?? "-")"
                }
            case "invoice.payment_failed":
                if let subscription = try event.invoice().subscription, try await plans.apply(.paymentFailed(stripeSubscription: subscription)) {
                    outcome = "billing retry"
                }
            case "customer.subscription.updated":
                let subscription = try event.subscription()
                let ended = ["canceled", "unpaid", "incomplete_expired"].contains(subscription.status)
                if try await plans.apply(.updated(stripeSubscription: subscription.id, cancelAtPeriodEnd: subscription.cancelAtPeriodEnd, ended: ended)) {
                    outcome = "updated"
                }
            case "customer.subscription.deleted":
                if try await plans.apply(.deleted(stripeSubscription: try event.subscription().id)) { outcome = "ended" }
            case "charge.refunded":
                let charge = try event.charge()
                // `amount_refunded` is the total so far; `refunded` says whether that is the whole charge.
                if let paymentIntent = charge.paymentIntent,
                   let order = try await orders.refund(processor: "stripe", paymentRef: paymentIntent, amount: charge.amountRefunded, full: charge.refunded) {
                    outcome = order.status == .refunded ? "refunded" : "partly refunded"
                } else if try await plans.apply(.refunded(invoice: charge.invoice, paymentIntent: charge.paymentIntent, amount: charge.amountRefunded,
                                                          full: charge.refunded)) {
                    outcome = charge.refunded ? "plan refunded" : "plan partly refunded"
                }
            default:
                break
            }
        } catch let error as JSONPathError {
            context.logger.warning("Stripe webhook unreadable", metadata: ["event": "\(event.id)", "type": "\(event.type)", "reason": "\(error)"])
            throw Problem(.badRequest, "The \(event.type) event cannot be read: \(error)")
        }
        context.logger.info("Stripe webhook", metadata: ["event": "\(event.id)", "type": "\(event.type)", "outcome": "\(outcome)"])
        return .json(["received": true], cacheControl: "no-store")
    }

    /// A Checkout Session paid, at once (`checkout.session.completed`) or once a delayed payment
    /// method has paid (`checkout.session.async_payment_succeeded`): the order is paid with
    /// `amount_total`, or the pending plan starts. A session not paid grants nothing.
    func paid(_ session: StripeCheckoutSession, orders: MarketplaceOrderStore, plans: MarketplaceSubscriptionStore) async throws -> String {
        guard session.isPaid else { return "not paid: nothing granted" }
        if session.mode == "subscription" {
            return try await plans.apply(.paid(sessionId: session.id, stripeSubscription: session.subscription)) ? "subscribed" : "nothing to do"
        }
        guard let order = try await orders.order(processor: "stripe", ref: session.id) else { return "unknown session" }
        return try await orders.markPaid(order.id, amount: session.amountTotal ?? order.price.amount, paymentRef: session.paymentIntent) != nil
            ? "paid" : "already settled"
    }

    /// A Checkout Session that will not be paid (its delayed payment failed, or it expired): the
    /// open order is closed, or the pending plan removed, so the next checkout makes a new session.
    /// A paid order or a started plan is never touched.
    func closed(_ session: StripeCheckoutSession, as closing: MarketplaceOrderStore.Closing, orders: MarketplaceOrderStore,
                plans: MarketplaceSubscriptionStore) async throws -> String {
        if session.mode == "subscription" {
            return try await plans.apply(.checkoutClosed(sessionId: session.id)) ? "plan checkout removed" : "nothing to do"
        }
        return try await orders.close(processor: "stripe", ref: session.id, as: closing).map { "order \($0.status.rawValue)" } ?? "nothing to do"
    }
}
