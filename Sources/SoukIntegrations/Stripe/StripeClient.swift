import Foundation
import SoukCore

/// Calls Stripe's Checkout Sessions API (`stripeBaseUrl`, `https://api.stripe.com` in production)
/// with the account's secret key.
///
/// Errors: a timeout, a connection error, a 5xx or a 429 is retried by `StoreHTTPClient` and then
/// thrown as `StoreFault` (`unavailable`, `rateLimited`); a refused key (401/403) is
/// `StoreFault(.credentials)`; Stripe refusing the request itself (400, 402, 404) is a
/// `StripeRequestError`. The secret key never appears in either.
public struct StripeClient: Sendable {
    let baseURL: String
    let secretKey: String
    let http: StoreHTTPClient
    let apiVersion: String?

    /// `apiVersion` is sent as `Stripe-Version` when given; otherwise the account's default applies.
    public init(baseURL: String, secretKey: String, http: StoreHTTPClient, apiVersion: String? = nil) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.secretKey = secretKey
        self.http = http
        self.apiVersion = apiVersion
    }

    /// `POST /v1/checkout/sessions`, form-encoded, with `Idempotency-Key` (Souk's key for the checkout,
    /// at most 255 characters): a retry, ours or `StoreHTTPClient`'s, returns the same session instead
    /// of opening a second one. Throws `StoreFault` or `StripeRequestError`.
    public func createCheckoutSession(_ request: StripeCheckoutRequest, idempotencyKey: String) async throws -> StripeCheckoutSession {
        let body = Array(StripeFormEncoding.encode(request.formFields).utf8)
        var headers = self.headers
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        headers.append(("Idempotency-Key", idempotencyKey))
        let label = "Stripe create checkout session"
        let response = try await http.send(.POST, baseURL + "/v1/checkout/sessions", headers: headers, body: body, label: label)
        return try session(from: response, label: label)
    }

    /// `GET /v1/checkout/sessions/:id`: the session as it is now (to confirm a redirect back, or to
    /// reconcile a webhook that never came). Throws `StoreFault` or `StripeRequestError` (404 for an
    /// unknown id).
    public func checkoutSession(id: String) async throws -> StripeCheckoutSession {
        let label = "Stripe retrieve checkout session"
        let url = baseURL + "/v1/checkout/sessions/" + StripeFormEncoding.pathSegment(id)
        let response = try await http.send(.GET, url, headers: headers, label: label)
        return try session(from: response, label: label)
    }

    /// `POST /v1/subscriptions/:id` with `cancel_at_period_end`: a subscription stops renewing (or
    /// renews again) at the end of the period it is in; Stripe then sends
    /// `customer.subscription.updated`. Throws `StoreFault` (no answer) or `StripeRequestError`.
    public func setCancelAtPeriodEnd(subscription id: String, _ cancel: Bool) async throws {
        let label = "Stripe update subscription"
        let url = baseURL + "/v1/subscriptions/" + StripeFormEncoding.pathSegment(id)
        let body = Array(StripeFormEncoding.encode([("cancel_at_period_end", cancel ? "true" : "false")]).utf8)
        let response = try await http.send(.POST, url, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")],
                                           body: body, label: label)
        switch response.status {
        case 200: return
        case 401, 403: throw StoreFault(.credentials, "\(label): Stripe refused the secret key (\(response.status)); check stripeSecretKey")
        case 409, 429, 500...: throw StoreFault(.unavailable, "\(label): Stripe answered \(response.status)")
        default: throw StripeRequestError(status: response.status, body: response.body)
        }
    }

    /// `POST /v1/refunds` of a PaymentIntent (the whole charge, or `amount` minor units), with
    /// `Idempotency-Key` so a retried request refunds once. Stripe then sends `charge.refunded`,
    /// which is what changes the order. Returns the refund's id. Throws `StoreFault` (no answer:
    /// nothing was refunded, or the retry will find the same refund) or `StripeRequestError` (Stripe
    /// refused, e.g. already refunded).
    public func refund(paymentIntent: String, amount: Int? = nil, idempotencyKey: String) async throws -> String {
        let label = "Stripe create refund"
        var fields = [("payment_intent", paymentIntent)]
        if let amount { fields.append(("amount", String(amount))) }
        let response = try await http.send(.POST, baseURL + "/v1/refunds",
                                           headers: headers + [("Content-Type", "application/x-www-form-urlencoded"), ("Idempotency-Key", idempotencyKey)],
                                           body: Array(StripeFormEncoding.encode(fields).utf8), label: label)
        switch response.status {
        case 200:
            guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], let id = object["id"] as? String else {
                throw StoreFault(.unavailable, "\(label): Stripe's answer is not a refund object")
            }
            return id
        case 401, 403: throw StoreFault(.credentials, "\(label): Stripe refused the secret key (\(response.status)); check stripeSecretKey")
        case 409, 429, 500...: throw StoreFault(.unavailable, "\(label): Stripe answered \(response.status)")
        default: throw StripeRequestError(status: response.status, body: response.body)
        }
    }

    var headers: [(String, String)] {
        var headers = [("Authorization", "Bearer \(secretKey)"), ("Accept", "application/json")]
        if let apiVersion { headers.append(("Stripe-Version", apiVersion)) }
        return headers
    }

    func session(from response: StoreResponse, label: String) throws -> StripeCheckoutSession {
        switch response.status {
        case 200:
            do {
                return try StripeCheckoutSession(json: try JSONValue.parse(response.body), path: "")
            } catch {
                throw StoreFault(.unavailable, "\(label): Stripe answered 200 with a body that is not a Checkout Session (\(error))")
            }
        case 401:
            throw StoreFault(.credentials, "\(label): Stripe refused the secret key (401); check stripeSecretKey")
        case 403:
            throw StoreFault(.credentials,
                             "\(label): the secret key may not use this API (403); a restricted key needs Checkout Sessions write access")
        case 409:
            // Another request with the same idempotency key is still running: no answer yet, so not a refusal.
            throw StoreFault(.unavailable, "\(label): Stripe is still processing a request with the same idempotency key (409)")
        case 400...499:
            throw StripeRequestError(status: response.status, body: response.body)
        default:
            throw StoreFault(.unavailable, "\(label): Stripe answered an unexpected status \(response.status)")
        }
    }
}
