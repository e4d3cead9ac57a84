import SoukIntegrations

extension SoukRuntime {
    /// The Stripe client of the marketplace's sales, when Stripe takes its payments.
    package func stripeClient() -> StripeClient? {
        let commerce = config.commerce
        guard commerce.paymentProcessor == "stripe", let key = commerce.stripeSecretKey else { return nil }
        return StripeClient(baseURL: commerce.stripeBaseURL, secretKey: key, http: StoreHTTPClient(retry: commerce.stores.retry))
    }
}
