import Foundation
import Hummingbird
import NIOCore
import SoukCore
import SoukStore

/// An RFC 9457 problem: the one error shape of Souk's API routes.
public struct Problem: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var detail: String
    /// A URI naming the problem type; `about:blank` when the status says it all.
    public var type: String
    /// Where to pay (a `402`'s extension member).
    public var purchaseURL: String?
    /// The account page (checkout's `409` extension member).
    public var accountURL: String?
    /// The checkout request that buys what a `402` refuses (`POST /api/v1/apps/<id>/install`).
    var checkout: ProblemCheckout?
    /// The platform and lowest OS version the app needs (an incompatible device's `409`).
    var minimumOS: ProblemMinimumOS?
    /// The `WWW-Authenticate` challenge of a `401` (RFC 9110 §11.6.1 requires one).
    public var challenge: String?
    /// The `Allow` header of a `405` (RFC 9110 §15.5.6 requires one).
    public var allow: String?
    /// Seconds in the `Retry-After` header (a `429`'s or a `503`'s).
    public var retryAfter: Int?
    /// The request's field (or JSON path, or package file) at fault: a `422`'s extension member.
    public var field: String?

    public init(_ status: HTTPResponse.Status, _ detail: String, type: String = "about:blank", purchaseURL: String? = nil,
                challenge: String? = nil, allow: String? = nil, retryAfter: Int? = nil) {
        self.retryAfter = retryAfter
        self.status = status
        self.detail = detail
        self.type = type
        self.purchaseURL = purchaseURL
        self.challenge = challenge
        self.allow = allow
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        ProblemMiddleware<BasicRequestContext>.response(self, request: request, id: context.id)
    }
}

/// Turns every error thrown below it into `application/problem+json`, logging unexpected ones once,
/// with the request id, and never showing their internals to the client.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let detail = error.body ?? error.status.reasonPhrase
            return Self.response(Problem(error.status, detail), request: request, id: context.id)
        } catch let error as CatalogError {
            let status: HTTPResponse.Status = switch error {
            case .notFound: .notFound
            case .duplicate: .conflict
            case .invalid: .badRequest
            }
            return Self.response(Problem(status, error.description), request: request, id: context.id)
        } catch is DecodingError {
            return Self.response(Problem(.badRequest, "The request body is not valid JSON of the expected shape."),
                                 request: request, id: context.id)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch let error where error is ObjectStoreUnavailable || DatabaseUnavailable.matches(error) {
            // An outage (the database, or the object store) is never a verdict: the client is told
            // to come back, not that a thing is gone.
            let what = error is ObjectStoreUnavailable ? "object store unavailable" : "database unavailable"
            context.logger.error("\(what)", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            var response = Self.response(Problem(.serviceUnavailable, "The service is briefly unavailable. Try again shortly."),
                                         request: request, id: context.id)
            response.headers[.retryAfter] = "5"
            return response
        } catch {
            context.logger.error("unexpected error", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            return Self.response(Problem(.internalServerError, "Something went wrong on our side. Quote request id \(context.id)."),
                                 request: request, id: context.id)
        }
    }

    static func response(_ problem: Problem, request: Request, id: String) -> Response {
        let data = ProblemDetails(type: problem.type, title: problem.status.reasonPhrase, status: problem.status.code,
                                  detail: problem.detail, instance: request.uri.path, requestId: id,
                                  purchaseURL: problem.purchaseURL, accountURL: problem.accountURL,
                                  checkout: problem.checkout, minimumOS: problem.minimumOS, field: problem.field).encoded()
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        headers[.contentLength] = String(data.count)
        if let challenge = problem.challenge { headers[.wwwAuthenticate] = challenge }
        if let allow = problem.allow { headers[.allow] = allow }
        if let retryAfter = problem.retryAfter { headers[.retryAfter] = String(retryAfter) }
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        return Response(status: problem.status, headers: headers, body: body)
    }
}

extension Request {
    /// The whole body, at most `limit` bytes; a larger one is a 413 problem, one that cannot be read
    /// to its end (the client hung up, a malformed chunk) a 400.
    func collectBody(upTo limit: Int) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: limit)
        } catch let problem as Problem {
            throw problem
        } catch is NIOTooManyBytesError {
            throw Problem(.contentTooLarge, "The request body is larger than \(limit) bytes.")
        } catch {
            throw Problem(.badRequest, "The request body could not be read to its end.")
        }
    }
}
