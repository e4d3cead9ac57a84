import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Takes a payment for a marketplace order: where the buyer is sent, the processor's reference,
/// and whether the order is paid already (no money moves in development).
package protocol PaymentProcessor: Sendable {
    var name: String { get }
    func start(_ order: MarketplaceOrder, app: AppRecord, buyer: AccountRecord) async throws -> (url: String, ref: String, paidNow: Bool)
}

/// No money moves (the demo, sandbox accounts, development): the order is paid when it is made,
/// and the buyer is sent back to the app's page, where Install now works.
package struct DevelopmentProcessor: PaymentProcessor {
    package let name = "development"
    package let publicURL: String

    package func start(_ order: MarketplaceOrder, app: AppRecord, buyer: AccountRecord) async throws -> (url: String, ref: String, paidNow: Bool) {
        ("\(publicURL)/apps/\(app.appleItemId)?order=\(order.id.uuidString.lowercased())", "dev_\(order.id.uuidString.lowercased())", true)
    }
}

/// Stripe Checkout: a Checkout Session per order (its idempotency key, so a retried creation is
/// the same session), priced inline; the order is paid when Stripe's signed webhook says so.
package struct StripeProcessor: PaymentProcessor {
    package let name = "stripe"
    package let client: StripeClient
    package let publicURL: String

    /// A plan's period as Stripe bills it (`month` × 1 …); nil for none, or one of mixed units.
    package static func interval(_ period: ISODuration?) -> (unit: String, count: Int)? {
        guard let period else { return nil }
        let parts = [("year", period.years), ("month", period.months), ("week", period.weeks), ("day", period.days)].filter { $0.1 > 0 }
        guard parts.count == 1, let only = parts.first else { return nil }
        return (only.0, only.1)
    }

    package func start(_ order: MarketplaceOrder, app: AppRecord, buyer: AccountRecord) async throws -> (url: String, ref: String, paidNow: Bool) {
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

/// Buying an app from the marketplace, for `POST /api/v1/checkout` and the app page's Buy button:
/// the open order of the account for the app (asking again answers the same order), or a new one
/// through the processor — development for sandbox accounts, else the configured one. With
/// `paymentProcessor` `none` nothing is sold to a production account (`paymentsNotConfigured`).
package struct CheckoutService: Sendable {
    package let catalog: CatalogStore
    /// The in-memory catalog whose prices an order is opened at.
    package let catalogIndex: CatalogIndex
    /// The in-app catalogs, the marketplace's membership plans among them.
    package let commerceCatalogs: CommerceCatalogCache
    package let plans: MarketplaceSubscriptionStore
    /// The server's public address, which the return URLs start with.
    package let publicURL: String
    package let orders: MarketplaceOrderStore
    package let payments: AppPayments
    /// The configured processor; nil when it is `none`.
    package let processor: (any PaymentProcessor)?
    package let development: DevelopmentProcessor

    package init(runtime: SoukRuntime) {
        catalog = runtime.catalog
        catalogIndex = runtime.catalogIndex
        commerceCatalogs = runtime.commerceCatalogs
        plans = MarketplaceSubscriptionStore(purchases: runtime.purchases)
        publicURL = runtime.config.publicURL
        self.orders = MarketplaceOrderStore(database: runtime.database)
        self.payments = AppPayments(runtime: runtime)
        self.development = DevelopmentProcessor(publicURL: runtime.config.publicURL)
        switch runtime.config.commerce.paymentProcessor {
        case "development": self.processor = development
        case "stripe": self.processor = runtime.stripeClient().map { StripeProcessor(client: $0, publicURL: runtime.config.publicURL) }
        default: self.processor = nil
        }
    }

    /// Who takes `buyer`'s payment: the development processor for a sandbox account, else the
    /// configured one (nil: this server sells nothing).
    package func processor(for buyer: AccountRecord) -> (any PaymentProcessor)? {
        buyer.sandbox ? development : processor
    }

    package enum Outcome: Sendable {
        case order(MarketplaceOrder)
        /// A membership plan subscribed to: started (development processor), or pending with
        /// its checkout URL (Stripe).
        case subscription(MarketplaceSubscription)
        case alreadyOwned
        /// A live or pending plan of the same group is held (billing retry included).
        case planHeld(MarketplaceSubscription)
        /// Not for sale on its own (free, or only included with a membership).
        case notForSale(String)
        /// `paymentProcessor` is `none`: nothing is sold until the operator chooses a processor.
        case paymentsNotConfigured
    }

    package func checkout(appleItemId: UInt64, currency: String?, buyer: AccountRecord) async throws -> Outcome {
        let app = try await catalog.appRecord(appleItemId: appleItemId)
        guard app.availability == .available, let indexed = try await catalogIndex.apps([appleItemId])[appleItemId] else {
            throw CatalogError.notFound("app \(appleItemId)")
        }
        if try await payments.verdict(indexed, account: buyer) == .open { return .alreadyOwned }
        guard let price = indexed.pricing.price(in: currency) else {
            return .notForSale("\(app.name) is not sold on its own; it is included with a membership (\(indexed.pricing.requiresEntitlement ?? "-")).")
        }
        guard let processor = processor(for: buyer) else { return .paymentsNotConfigured }
        let (order, _) = try await orders.openOrder(account: buyer.id, appleItemId: appleItemId, price: price,
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
}
