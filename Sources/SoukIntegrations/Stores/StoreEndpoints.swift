import Foundation

/// Where each store's API is (scheme and host; the paths are the stores' own), and how Souk retries
/// it. Settings (`googlePlayBaseUrl`, …) so that tests point them at local fakes.
public struct StoreEndpoints: Sendable, Equatable {
    /// Android Publisher API v3 (`/androidpublisher/v3/applications/…` is added).
    public var googlePlayBaseURL = "https://androidpublisher.googleapis.com"
    /// The service account's token endpoint (a full URL; the key file's `token_uri` is not trusted).
    public var googleOAuthTokenURL = "https://oauth2.googleapis.com/token"
    /// Google's OIDC signing keys, for the RTDN push JWT (a full URL, JWKS).
    public var googlePushCertsURL = "https://www.googleapis.com/oauth2/v3/certs"
    /// Amazon RVS (`/version/1.0/verifyReceiptId/…`).
    public var amazonRVSBaseURL = "https://appstore-sdk.amazon.com"
    /// Amazon RVS for sandbox purchases (Souk adds `/sandbox/version/1.0/…`).
    public var amazonRVSSandboxBaseURL = "https://appstore-sdk.amazon.com"
    /// Roku Pay web services (`/listen/transaction-service.svc/…`).
    public var rokuBaseURL = "https://apipub.roku.com"
    /// App Store Server API, production (`/inApps/v1/…`).
    public var appStoreServerAPIBaseURL = "https://api.storekit.apple.com"
    /// App Store Server API, sandbox.
    public var appStoreServerAPISandboxBaseURL = "https://api.storekit-sandbox.apple.com"
    /// Where Amazon SNS signing certificates and subscription URLs may be fetched from (a regular
    /// expression; `amazonSnsCertUrlPattern`). Tests allow their local fake.
    public var amazonSNSCertURLPattern = AmazonSNSVerifier.defaultPattern
    /// How long a Roku push notification waits for `validate-transaction` (Roku gives up after 10 s).
    public var rokuPushDeadline: Duration = .seconds(8)
    public var retry = StoreRetryPolicy()

    public init() {}
}

/// Retries of a store call that failed without a verdict (timeout, connection error, 5xx, 429):
/// exponential back-off from `base`, at most `max`, with full jitter; `attempts` calls in all
/// before the call gives up (`StoreFault`) and the purchase waits for its next turn.
public struct StoreRetryPolicy: Sendable, Equatable {
    public var base: Duration = .seconds(1)
    public var max: Duration = .seconds(30)
    public var attempts = 3
    /// How long one call may take.
    public var requestTimeout: Duration = .seconds(10)

    public init(base: Duration = .seconds(1), max: Duration = .seconds(30), attempts: Int = 3, requestTimeout: Duration = .seconds(10)) {
        self.base = base
        self.max = max
        self.attempts = attempts
        self.requestTimeout = requestTimeout
    }

    /// The wait before retry `retry` (1-based): a random share of min(max, base · 2^(retry-1)).
    public func delay(beforeRetry retry: Int, jitter: Double = Double.random(in: 0...1)) -> Duration {
        let ceiling = min(max.timeInterval, base.timeInterval * pow(2, Double(Swift.max(0, retry - 1))))
        // At least half the ceiling: a retry storm never comes back at once.
        return .milliseconds(Int64((ceiling * (0.5 + jitter / 2)) * 1000))
    }
}
