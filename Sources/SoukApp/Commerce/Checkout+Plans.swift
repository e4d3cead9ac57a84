import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

extension CheckoutService {
    /// Subscribing to a membership plan of the marketplace catalog: the development processor
    /// starts it at once; Stripe starts it pending, with a Checkout Session in `mode=subscription`
    /// (asking again while that checkout is open answers the same one). One live or pending plan
    /// per account and plan group: a plan of the group already held (billing retry and grace period
    /// included) is `planHeld`, also when two checkouts race.
    package func subscribe(productId: String, currency: String?, buyer: AccountRecord) async throws -> Outcome {
        guard let marketplace = try await commerceCatalogs.state(app: AppPricing.marketplaceApp),
              let product = marketplace.catalog.products.first(where: { $0.id == productId }) else {
            throw CatalogError.notFound("plan \(productId)")
        }
        guard product.type == .autoRenewable, product.period != nil, let price = product.prices.first(where: { $0.currency == currency?.uppercased() })
                ?? product.prices.first else {
            return .notForSale("\(productId) is not a membership plan with a price.")
        }
        let group = product.group ?? product.id
        let groupProducts = (marketplace.catalog.products + marketplace.retired).filter { ($0.group ?? $0.id) == group }.map(\.id)
        guard let processor = processor(for: buyer) else { return .paymentsNotConfigured }
        let stripe = processor as? StripeProcessor
        if stripe != nil, StripeProcessor.interval(product.period) == nil {
            return .notForSale("\(productId)'s period cannot be billed by Stripe (one unit: days, weeks, months or years).")
        }
        switch try await plans.subscribe(account: buyer.id, product: product, groupProducts: groupProducts, price: price,
                                         sandbox: buyer.sandbox, processor: processor.name, pending: stripe != nil) {
        case .held(let held):
            return try await resume(held, product: product, buyer: buyer) ?? .planHeld(held)
        case .started(let started):
            guard let stripe else { return .subscription(started) }
            do {
                return .subscription(try await openCheckout(started, product: product, price: price, buyer: buyer, stripe: stripe))
            } catch {
                // No session, so nothing to pay: the next checkout of the group must not find this one held.
                _ = try? await plans.removeUnstartedCheckout(started.id, account: started.accountId)
                throw error
            }
        }
    }

    /// How long a pending plan without its Checkout Session yet is left to the checkout that is
    /// making it; after that it was cut off (a crash, an outage) and the next checkout finishes it.
    package static var sessionGrace: TimeInterval { 60 }

    /// A held plan that is this very plan's Stripe checkout, still pending: the same checkout again;
    /// one cut off before its session was recorded gets it now (made under the same idempotency
    /// key, so never a second session). A checkout still being made by another request, or any other
    /// plan of the group: nil (held).
    private func resume(_ held: MarketplaceSubscription, product: ProductDefinition, buyer: AccountRecord) async throws -> Outcome? {
        guard held.pending, held.productId == product.id, held.processor == "stripe" else { return nil }
        if held.checkoutURL != nil { return .subscription(held) }
        guard Date().timeIntervalSince(held.startedAt) > Self.sessionGrace, let stripe = processor(for: buyer) as? StripeProcessor else { return nil }
        return .subscription(try await openCheckout(held, product: product, price: held.price, buyer: buyer, stripe: stripe))
    }

    /// The Checkout Session of a pending plan (the plan's id is its idempotency key: a retried
    /// creation is the same session), recorded with the plan.
    private func openCheckout(_ pending: MarketplaceSubscription, product: ProductDefinition, price: Price, buyer: AccountRecord,
                              stripe: StripeProcessor) async throws -> MarketplaceSubscription {
        guard let interval = StripeProcessor.interval(pending.period) else {
            throw StoreFault(.unavailable, "\(product.id)'s period cannot be billed by Stripe.")
        }
                let session = try await stripe.client.createCheckoutSession(StripeCheckoutRequest(
            mode: .subscription,
            lineItems: [StripeLineItem(name: product.title["en-US"] ?? product.id, currency: price.currency.lowercased(), unitAmount: price.amount,
                                       recurringInterval: interval.unit, recurringIntervalCount: interval.count)],
            successURL: "\(publicURL)/account?checkout=paid", cancelURL: "\(publicURL)/account?checkout=cancelled",
            clientReferenceId: pending.id.uuidString.lowercased(), customerEmail: buyer.email,
            metadata: ["souk_subscription": pending.id.uuidString.lowercased()]), idempotencyKey: pending.id.uuidString.lowercased())
        guard let url = session.url else { throw StoreFault(.unavailable, "Stripe created a Checkout Session without a URL.") }
        try await plans.attachCheckout(pending.id, sessionId: session.id, url: url)
        var started = pending
        started.checkoutURL = url
        return started
    }
}
