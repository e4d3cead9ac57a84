import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Takes a payment for a marketplace order: where the buyer is sent, the processor's reference,
/// and whether the order is paid already (no money moves in development).
protocol PaymentProcessor: Sendable {
    var name: String { get }
    func start(_ order: MarketplaceOrder, app: AppModel, buyer: AccountModel) async throws -> (url: String, ref: String, paidNow: Bool)
}

/// No money moves (the demo, sandbox accounts, development): the order is paid when it is made,
/// and the buyer is sent back to the app's page, where Install now works.
struct DevelopmentProcessor: PaymentProcessor {
    let name = "development"
    let publicURL: String

    func start(_ order: MarketplaceOrder, app: AppModel, buyer: AccountModel) async throws -> (url: String, ref: String, paidNow: Bool) {
        ("\(publicURL)/apps/\(app.appleItemId)?order=\(order.id.uuidString.lowercased())", "dev_\(order.id.uuidString.lowercased())", true)
    }
}

/// Stripe Checkout: a Checkout Session per order (its idempotency key, so a retried creation is
/// the same session), priced inline; the order is paid when Stripe's signed webhook says so.
struct StripeProcessor: PaymentProcessor {
    let name = "stripe"
    let client: StripeClient
    let publicURL: String

    /// A plan's period as Stripe bills it (`month` × 1 …); nil for a period of mixed units.
    static func interval(_ period: ISODuration?) -> (unit: String, count: Int)? {
        guard let period else { return nil }
        let parts = [("year", period.years), ("month", period.months), ("week", period.weeks), ("day", period.days)].filter { $0.1 > 0 }
        guard parts.count == 1, let only = parts.first else { return nil }
        return (only.0, only.1)
    }

    func start(_ order: MarketplaceOrder, app: AppModel, buyer: AccountModel) async throws -> (url: String, ref: String, paidNow: Bool) {
        let page = "\(publicURL)/apps/\(app.appleItemId)"
        let session = try await client.createCheckoutSession(StripeCheckoutRequest(
            mode: .payment,
            lineItems: [StripeLineItem(name: app.name, currency: order.price.currency.lowercased(), unitAmount: order.price.amount)],
            successURL: "\(page)?checkout=paid", cancelURL: "\(page)?checkout=cancelled",
            clientReferenceId: order.id.uuidString.lowercased(), customerEmail: buyer.email,
            metadata: ["souk_order": order.id.uuidString.lowercased()]), idempotencyKey: order.idempotencyKey)
        guard let url = session.url else { throw StoreFault(.unavailable, "Stripe created a Checkout Session without a URL.") }
        return (url, session.id, false)
    }
}

/// Buying an app from the marketplace (issue 13 items 3-4), for `POST /api/v1/checkout`: the open
/// order of the account for the app (asking again answers the same order), or a new one through
/// the processor — development for sandbox accounts, else the configured one.
struct CheckoutService: Sendable {
    let runtime: SoukRuntime
    let orders: MarketplaceOrderStore
    let payments: AppPayments
    let processor: any PaymentProcessor
    let development: DevelopmentProcessor

    init(runtime: SoukRuntime) {
        self.runtime = runtime
        self.orders = MarketplaceOrderStore(database: runtime.database)
        self.payments = AppPayments(runtime: runtime)
        self.development = DevelopmentProcessor(publicURL: runtime.config.publicURL)
        if let client = runtime.stripeClient() {
            self.processor = StripeProcessor(client: client, publicURL: runtime.config.publicURL)
        } else {
            self.processor = development
        }
    }

    enum Outcome: Sendable {
        case order(MarketplaceOrder)
        /// A membership plan subscribed to (development processor: paid at once).
        case subscription(MarketplaceSubscription)
        case alreadyOwned
        /// Not for sale on its own (free, or only included with a membership).
        case notForSale(String)
    }

    func checkout(appleItemId: UInt64, currency: String?, buyer: AccountModel) async throws -> Outcome {
        let app = try await runtime.catalog.app(appleItemId: appleItemId)
        guard app.availability == .available, let indexed = try await runtime.catalogIndex.apps([appleItemId])[appleItemId] else {
            throw CatalogError.notFound("app \(appleItemId)")
        }
        if try await payments.verdict(indexed, account: buyer) == .open { return .alreadyOwned }
        guard let price = indexed.pricing.price(in: currency) else {
            return .notForSale("\(app.name) is not sold on its own; it is included with a membership (\(indexed.pricing.requiresEntitlement ?? "-")).")
        }
        let processor: any PaymentProcessor = buyer.sandbox ? development : self.processor
        let (order, _) = try await orders.openOrder(account: try buyer.requireID(), appleItemId: appleItemId, price: price,
                                                    environment: buyer.sandbox ? .sandbox : .production, processor: processor.name)
        if order.url != nil {
            // The development processor pays as it starts. Its order left open with a URL was cut
            // off between the two writes below (a crash): finish it, or it would stay unpaid for ever.
            if order.processor == development.name, order.status == .open, let ref = order.processorRef {
                try await orders.markPaid(order.id, amount: order.price.amount, paymentRef: ref)
                return .order(try await orders.order(order.id) ?? order)
            }
            return .order(order)
        }
        let started = try await processor.start(order, app: app, buyer: buyer)
        try await orders.attach(order.id, processorRef: started.ref, url: started.url)
        if started.paidNow { try await orders.markPaid(order.id, amount: order.price.amount, paymentRef: started.ref) }
        return .order(try await orders.order(order.id) ?? order)
    }

    /// Subscribing to a membership plan of the marketplace catalog. Only the development processor
    /// sells plans yet (sandbox accounts and the demo); with Stripe they are not for sale.
    func subscribe(productId: String, currency: String?, buyer: AccountModel) async throws -> Outcome {
        guard let marketplace = try await runtime.commerceCatalogs.state(app: AppPricing.marketplaceApp),
              let product = marketplace.catalog.products.first(where: { $0.id == productId }) else {
            throw CatalogError.notFound("plan \(productId)")
        }
        guard product.type == .autoRenewable, product.period != nil, let price = product.prices.first(where: { $0.currency == currency?.uppercased() })
                ?? product.prices.first else {
            return .notForSale("\(productId) is not a membership plan with a price.")
        }
        let processor: any PaymentProcessor = buyer.sandbox ? development : self.processor
        let accountID = try buyer.requireID()
        let subscriptions = MarketplaceSubscriptionStore(purchases: runtime.purchases)
        let held = try await subscriptions.subscriptions(account: accountID).filter { $0.productId == productId }
        if held.contains(where: { !$0.pending && ($0.state == .active || $0.state == .gracePeriod) && $0.expiresAt > Date() }) {
            return .alreadyOwned
        }
        guard let stripe = processor as? StripeProcessor else {
            return .subscription(try await subscriptions.start(account: accountID, product: product, price: price, sandbox: buyer.sandbox,
                                                               processor: processor.name))
        }
        // Stripe: asking again while the checkout is open answers the same one.
        if let open = held.first(where: { $0.pending && $0.checkoutURL != nil }) { return .subscription(open) }
        guard let interval = StripeProcessor.interval(product.period) else {
            return .notForSale("\(productId)'s period cannot be billed by Stripe (one unit: days, weeks, months or years).")
        }
        var started = try await subscriptions.start(account: accountID, product: product, price: price, sandbox: false, processor: stripe.name,
                                                    pending: true)
        let session = try await stripe.client.createCheckoutSession(StripeCheckoutRequest(
            mode: .subscription,
            lineItems: [StripeLineItem(name: product.title["en-US"] ?? product.id, currency: price.currency.lowercased(), unitAmount: price.amount,
                                       recurringInterval: interval.unit, recurringIntervalCount: interval.count)],
            successURL: "\(runtime.config.publicURL)/account?checkout=paid", cancelURL: "\(runtime.config.publicURL)/account?checkout=cancelled",
            clientReferenceId: started.id.uuidString.lowercased(), customerEmail: buyer.email,
            metadata: ["souk_subscription": started.id.uuidString.lowercased()]), idempotencyKey: started.id.uuidString.lowercased())
        guard let url = session.url else { throw StoreFault(.unavailable, "Stripe created a Checkout Session without a URL.") }
        try await subscriptions.attachCheckout(started.id, sessionId: session.id, url: url)
        started.checkoutURL = url
        return .subscription(started)
    }
}
