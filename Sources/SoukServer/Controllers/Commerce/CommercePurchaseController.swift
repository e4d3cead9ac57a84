import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The payment-provider API's purchase side (Zapp's payment-provider API), under `/commerce/<app>/`:
/// - `POST transactions`: a CloudEvents 1.0 payment-validation event (structured or binary mode) →
///   `201` + payment, `202` + payment + `Location` to poll, `422` problem (refused), `400` (malformed);
/// - `GET entitlements`, `GET entitlement/<id>` (`?payment=` polls a purchase), `GET user-purchases`;
/// - `POST restore` (`{"signedTransactions": [...]}`), `POST consume`, `GET balances`.
/// Every route needs the person's access token (`CommerceAuthenticator`); answers are `no-store`.
struct CommercePurchaseController<Context: RequestContext> {
    let intake: PurchaseIntakeService
    let catalogs: CommerceCatalogCache
    let purchases: PurchaseStore
    let authenticator: CommerceAuthenticator
    let entitlements: EntitlementReader
    let publicURL: String

    func addRoutes(to router: Router<Context>) {
        router.post("commerce/:app/transactions", use: transactions)
        router.get("commerce/:app/entitlements", use: entitlementList)
        router.get("commerce/:app/entitlement/:id", use: entitlement)
        router.get("commerce/:app/user-purchases", use: userPurchases)
        router.post("commerce/:app/restore", use: restore)
        router.post("commerce/:app/consume", use: consume)
        router.get("commerce/:app/balances", use: balances)
    }

    /// Records the purchase a CloudEvent reports, once, and answers its outcome.
    @Sendable func transactions(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let body = Array(buffer: try await request.collectBody(upTo: 1 << 20))
        let parsed: Result<PaymentValidationEvent, CloudEventError>
        // Binary mode carries the attributes as ce-* headers; application/cloudevents+json is always structured.
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if request.headers[ceSpecversion] != nil, !contentType.hasPrefix("application/cloudevents") {
            var headers: [String: String] = [:]
            for field in request.headers {
                let name = field.name.canonicalName
                headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
            }
            parsed = CloudEventParser.binary(headers: headers, body: body)
        } else {
            parsed = CloudEventParser.structured(body)
        }
        let event: PaymentValidationEvent
        switch parsed {
        case .failure(let error): throw Problem(.badRequest, "Not a payment-validation CloudEvent: \(error.description)", type: "urn:souk:problem:malformed-event")
        case .success(let value): event = value
        }
        let outcome: IntakeOutcome
        do {
            outcome = try await intake.submit(event, app: catalog.app, catalog: catalog, buyer: buyer)
        } catch let limit as StoreLookupLimit {
            throw Problem(.tooManyRequests, "Too many purchases were looked up by transaction id alone from this account; "
                          + "send the signed purchase, or try again in \(limit.retryAfter) seconds.",
                          type: "urn:souk:problem:too-many-lookups", retryAfter: limit.retryAfter)
        }
        switch outcome {
        case .granted(let payment):
            return paymentResponse(payment, status: .created)
        case .pending(let payment):
            var response = paymentResponse(payment, status: .accepted)
            response.headers[.location] = "\(publicURL)/commerce/\(catalog.app)/entitlement/\(event.data.productId)?payment=\(payment.uuidString.lowercased())"
            return response
        case .refused(_, let refusal):
            throw Self.problem(refusal)
        }
    }

    func paymentResponse(_ payment: UUID, status: HTTPResponse.Status) -> Response {
        var response = Response.json(bytes: WireJSON.encode(PaymentDocument(paymentId: payment)), status: status, cacheControl: "no-store")
        response.headers[.contentType] = "application/vnd.api+json"
        return response
    }

    /// A refusal as RFC 9457 problem JSON; its code ends the type URI.
    static func problem(_ refusal: PurchaseRefusal) -> Problem {
        Problem(.unprocessableContent, refusal.detail, type: "urn:souk:problem:\(refusal.code)")
    }

    /// The catalog of the path's app, or a 404 problem.
    func catalog(_ context: Context) async throws -> CommerceCatalogState {
        let app = try context.parameters.require("app")
        guard let state = try await catalogs.state(app: app) else {
            throw Problem(.notFound, "No in-app products are sold for \(app) here.")
        }
        return state
    }

    let ceSpecversion = HTTPField.Name("ce-specversion")!
}
