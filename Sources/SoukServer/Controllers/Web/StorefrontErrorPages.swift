import Foundation
import Hummingbird
import NIOCore
import SoukApp
import SoukStore

/// 404 and 5xx answers in the storefront's look for a browser: sits outside `ProblemMiddleware`,
/// and when a request that asks for `text/html` (a browser navigating, not an API client) on a
/// page route gets a problem with one of those statuses, the problem is shown as the `error` page
/// (same status, same headers that matter: `Retry-After`). JSON APIs keep RFC 9457 problems, and
/// unexpected errors are still logged once, by `ProblemMiddleware`.
struct StorefrontErrorPages<Context: RequestContext>: RouterMiddleware {
    let pages: Pages
    let catalog: CatalogStore
    let keys: SoukKeys

    /// Paths whose answers are for programs, whatever they accept.
    static var apiPrefixes: [String] {
        ["/api/", "/commerce/", "/marketplace-kit/", "/oauth/token", "/oauth/revoke", "/oauth/userinfo", "/.well-known/", "/packages/",
         "/webhooks/", "/metrics", "/health", "/media/"]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard response.status == .notFound || response.status.code >= 500,
              response.headers[.contentType] == "application/problem+json",
              request.method == .get || request.method == .head || request.method == .post,
              Self.wantsHTML(request) else { return response }
        let collected = Collected()
        try await response.body.write(Collector(into: collected))
        let problem = try? JSONDecoder().decode(ProblemDetails.self, from: Data(buffer: collected.buffer))
        let title = response.status == .notFound ? "Page not found" : response.status.code == 503 ? "Briefly unavailable" : "Something went wrong"
        var message = problem?.detail ?? response.status.reasonPhrase
        if response.status == .notFound, message == "Not Found" || message.isEmpty {
            message = "There is no page at this address. It may have moved, or the link may be mistyped."
        }
        let name = (try? await catalog.marketplaceName(keys: keys)) ?? "Souk"
        var page = pages.response(.error, ErrorPageValues(title: title, marketplace: name, message: message, requestId: problem?.requestId),
                                  status: response.status)
        if let retry = response.headers[.retryAfter] { page.headers[.retryAfter] = retry }
        if request.method == .head { page.body = ResponseBody() }
        return page
    }

    /// A browser's navigation: `Accept` names `text/html`, and the path is not an API's.
    static func wantsHTML(_ request: Request) -> Bool {
        guard let accept = request.headers[.accept], accept.contains("text/html") else { return false }
        let path = request.uri.path
        return !apiPrefixes.contains { path.hasPrefix($0) }
    }

    /// The problem's bytes (a few hundred), read back from the response body.
    private final class Collected {
        var buffer = ByteBuffer()
    }

    private struct Collector: ResponseBodyWriter {
        let into: Collected

        mutating func write(_ buffer: ByteBuffer) async throws {
            into.buffer.writeImmutableBuffer(buffer)
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
