import Foundation

/// RFC 9457 problem details, as Souk writes them (`application/problem+json`).
struct ProblemDetails: Codable, Sendable, Equatable {
    /// A URI naming the problem type; `about:blank` when the status says it all.
    var type: String
    var title: String
    var status: Int
    var detail: String
    /// The path the problem happened on.
    var instance: String
    /// The request id, as in the `X-Request-Id` header and the server's log.
    var requestId: String
    /// Where to pay, for `402` problems (`purchase-required`, `subscription-expired`).
    var purchaseURL: String?
    /// The account page, for checkout's `409` (`already-owned`): where the person sees what they hold.
    var accountURL: String?
    /// The checkout request to make, for the marketplace app's `402`s (`ProblemCheckout`).
    var checkout: ProblemCheckout?
    /// What the app needs, for an incompatible device's `409` (`ProblemMinimumOS`).
    var minimumOS: ProblemMinimumOS?
    /// The request's field, JSON path or package file at fault, for the developer API's `422`s.
    var field: String?

    /// The JSON bytes, keys sorted so that equal problems are equal bytes.
    func encoded() -> Data { WireJSON.encode(self) }
}
