@_spi(Internal) import Hummingbird
import Synchronization

/// An undeclared method on a path Souk serves is a `405` problem with `Allow` listing the methods
/// the path answers (RFC 9110 §15.5.6), not a `404`; `OPTIONS` on such a path is a `204` with that
/// `Allow` (plus `OPTIONS`). A path no route serves stays a `404`.
///
/// Only answers that are already `404`s are looked at, so routed requests pay nothing. The paths
/// are resolved by Hummingbird's own trie (its `@_spi(Internal)` builder), filled from
/// `Router.routes` once every route is added (`buildRouter`), so a path resolves here exactly as
/// the router resolved it.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound {
            guard let methods = otherMethods(request) else { throw error }
            return try answer(request, methods)
        }
        guard response.status == .notFound, let methods = otherMethods(request) else { return response }
        return try answer(request, methods)
    }

    /// The methods the request's path answers when its method is not one of them; nil when the
    /// path is served with this method (a handler said 404) or not at all.
    private func otherMethods(_ request: Request) -> [HTTPRequest.Method]? {
        guard let methods = routes.methods(for: request.uri.path), !methods.contains(request.method) else { return nil }
        return methods
    }

    private func answer(_ request: Request, _ methods: [HTTPRequest.Method]) throws -> Response {
        let allow = methods.map(\.rawValue).joined(separator: ", ")
        if request.method == .options {
            return Response(status: .noContent, headers: [.allow: allow + ", OPTIONS", .cacheControl: "no-store"])
        }
        throw Problem(.methodNotAllowed, "\(request.uri.path) answers \(allow), not \(request.method.rawValue).", allow: allow)
    }
}

/// Which methods each route path answers, resolved like the router resolves paths.
final class RouteMethods: Sendable {
    private let trie = Mutex<RouterTrie<[HTTPRequest.Method]>?>(nil)

    /// Takes the router's routes; call it once all are added.
    func load<Context>(_ router: Router<Context>) {
        var byPath: [String: (path: RouterPath, methods: [HTTPRequest.Method])] = [:]
        for route in router.routes {
            byPath[route.path.description, default: (route.path, [])].methods.append(route.method)
        }
        let builder = RouterPathTrieBuilder<[HTTPRequest.Method]>()
        let order: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]
        for (path, methods) in byPath.values {
            let sorted = methods.sorted { (order.firstIndex(of: $0) ?? order.count, $0.rawValue) < (order.firstIndex(of: $1) ?? order.count, $1.rawValue) }
            builder.addEntry(path, value: sorted)
        }
        let built = builder.build()
        trie.withLock { $0 = built }
    }

    /// The methods a route answers at `path`, or nil when no route has that path.
    func methods(for path: String) -> [HTTPRequest.Method]? {
        guard let trie = trie.withLock({ $0 }) else { return nil }
        return trie.resolve(path)?.value
    }
}
