import SoukCore

/// Stripe refused the request itself (400, 402, 404, an idempotency key reused with other
/// parameters): an answer, not an outage, so it is not retried and not a `StoreFault`.
///
/// Fields as Stripe's error body names them (`{"error": {"type", "code", "message", "param"}}`).
/// `message` is Stripe's sentence with anything shaped like an email address or an API key
/// replaced, since Stripe may quote the parameter it refused and errors end up in logs.
public struct StripeRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (400, 402, 404…).
    public var status: Int
    /// `invalid_request_error`, `idempotency_error`, `card_error`, `api_error`; empty when the body
    /// was not Stripe's error shape.
    public var type: String
    /// `parameter_missing`, `resource_missing`…, when Stripe gives one.
    public var code: String?
    public var message: String
    /// The parameter at fault (`line_items[0][price_data][currency]`), when Stripe names one.
    public var param: String?

    public init(status: Int, type: String, code: String? = nil, message: String, param: String? = nil) {
        self.status = status
        self.type = type
        self.code = code
        self.message = Self.redacted(message)
        self.param = param
    }

    /// Reads Stripe's error body; a body of another shape still gives an error naming the status.
    init(status: Int, body: [UInt8]) {
        let error = (try? JSONValue.parse(body))?["error"]
        self.init(status: status, type: error?["type"]?.stringValue ?? "", code: error?["code"]?.stringValue,
                  message: error?["message"]?.stringValue ?? "no error message", param: error?["param"]?.stringValue)
    }

    public var description: String {
        var what = type.isEmpty ? "\(status)" : "\(status) \(type)"
        if let code { what += ", \(code)" }
        if let param { what += ", parameter \(param)" }
        return "Stripe refused the request (\(what)): \(message)"
    }

    /// Email addresses and Stripe keys (`sk_`, `rk_`, `pk_`, `whsec_`) in Stripe's message, replaced.
    static func redacted(_ message: String) -> String {
        message
            .replacing(#/[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+/#, with: "<email>")
            .replacing(#/\b(sk|rk|pk)_(live|test)_[A-Za-z0-9*]+|\bwhsec_[A-Za-z0-9*]+/#, with: "<key>")
    }
}
