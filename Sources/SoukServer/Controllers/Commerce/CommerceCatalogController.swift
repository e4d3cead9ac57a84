import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The lists an app reads about its products, from the catalog in memory; no token needed.
/// - `GET /commerce/<app>/products_v1.json` (StoreKit's “Loading In-App Product Identifiers”): a JSON array of the SKUs the app hands to StoreKit.
/// - `GET /commerce/<app>/products_v2.json`: the documented object form (`ProductListV2`).
/// - `GET /commerce/<app>/products` (Zapp's payment-provider API): the Pipes2 feed (`ProductFeed`), 20 entries a page.
/// All three answer `ETag` and `Last-Modified` and `304` to a matching `If-None-Match` or a
/// current `If-Modified-Since`; `?store=` or `?platform=` picks the store. Unknown app: 404.
struct CommerceCatalogController<Context: RequestContext> {
    let catalogs: CommerceCatalogCache
    let providerName: String
    let publicURL: String
    static var pageSize: Int { 20 }

    func addRoutes(to router: Router<Context>) {
        router.get("commerce/:app/products_v1.json", use: productsV1)
        router.get("commerce/:app/products_v2.json", use: productsV2)
        router.get("commerce/:app/products", use: products)
    }

    /// Seed 004's list: the SKUs in one store (Apple unless `?store=`/`?platform=`) of the products on sale.
    @Sendable func productsV1(_ request: Request, context: Context) async throws -> Response {
        let (state, store) = try await lookup(request, context: context)
        let chosen = store ?? .appleStore
        return try conditional(request, state: state, list: "v1.\(chosen.rawValue)") {
            Response.json(bytes: WireJSON.encode(ProductLists.v1(state, store: chosen)), cacheControl: "no-cache")
        }
    }

    /// The products on sale (only those sold in a store when one is named) as objects.
    @Sendable func productsV2(_ request: Request, context: Context) async throws -> Response {
        let (state, store) = try await lookup(request, context: context)
        return try conditional(request, state: state, list: "v2.\(store?.rawValue ?? "all")") {
            Response.json(bytes: WireJSON.encode(ProductListV2(state: state, store: store)), cacheControl: "no-cache")
        }
    }

    /// The Pipes2 feed; `?page=` (from 1) picks a page, `next` names the following one.
    @Sendable func products(_ request: Request, context: Context) async throws -> Response {
        let (state, store) = try await lookup(request, context: context)
        let pageText = request.uri.queryParameters["page"].map(String.init)
        guard let page = pageText.map({ Int($0) }) ?? 1, page >= 1 else {
            throw Problem(.badRequest, "page must be a whole number from 1.")
        }
        let products = ProductLists.onSale(state, store: store)
        let (range, hasMore) = ProductLists.page(count: products.count, offset: ProductLists.offset(page: page, size: Self.pageSize), limit: Self.pageSize)
        let next = hasMore ? nextURL(app: state.app, request: request, page: page + 1) : nil
        let feed = ProductFeed(app: state.app, provider: providerName, products: products[range], store: store, next: next)
        return try conditional(request, state: state, list: "feed.\(store?.rawValue ?? "all").\(page)") {
            var response = Response.json(bytes: WireJSON.encode(feed), cacheControl: "no-cache")
            response.headers[.contentType] = "application/vnd+applicaster.pipes2+json"
            return response
        }
    }

    /// The app's catalog and the store the query names (`?store=` or `?platform=`), or the problem.
    func lookup(_ request: Request, context: Context) async throws -> (CommerceCatalogState, CommerceStore?) {
        let app = try context.parameters.require("app")
        let query = request.uri.queryParameters
        var store: CommerceStore?
        if let name = query["store"].map(String.init) {
            guard let named = CommerceStore(rawValue: name) else {
                throw Problem(.badRequest, "Unknown store \"\(name)\" (known: \(CommerceStore.allCases.map(\.rawValue).joined(separator: ", "))).")
            }
            store = named
        }
        if let platform = query["platform"].map(String.init) {
            guard let named = CommerceStore(platform: platform) else {
                throw Problem(.badRequest, "Unknown platform \"\(platform)\" (known: ios, tvos, android, amazon_fire_tv, roku).")
            }
            guard store == nil || store == named else {
                throw Problem(.badRequest, "platform \(platform) buys through \(named.rawValue), not \(store!.rawValue).")
            }
            store = named
        }
        guard CatalogFile.isValidAppId(app), let state = try await catalogs.state(app: app) else {
            throw Problem(.notFound, "No product catalog for app \(app).")
        }
        return (state, store)
    }

    /// `304 Not Modified` when the request's validators match this list at the catalog's revision;
    /// otherwise `make()` with `ETag` and `Last-Modified`.
    func conditional(_ request: Request, state: CommerceCatalogState, list: String, _ make: () throws -> Response) throws -> Response {
        let etag = ProductLists.entityTag(state, list: list)
        let lastModified = ProductLists.lastModified(state)
        let conditions = FileRequestConditions(ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince])
        if conditions.plan(size: 0, etag: etag, lastModified: lastModified) == .notModified {
            return Response(status: .notModified, headers: [.eTag: etag, .lastModified: HTTPDate.format(lastModified), .cacheControl: "no-cache"])
        }
        var response = try make()
        response.headers[.eTag] = etag
        response.headers[.lastModified] = HTTPDate.format(lastModified)
        return response
    }

    /// The absolute URL of a feed page, keeping the request's `store`/`platform`.
    func nextURL(app: String, request: Request, page: Int) -> String {
        var components = URLComponents()
        var items: [URLQueryItem] = []
        for name in ["store", "platform"] {
            if let value = request.uri.queryParameters[Substring(name)] { items.append(URLQueryItem(name: name, value: String(value))) }
        }
        items.append(URLQueryItem(name: "page", value: String(page)))
        components.queryItems = items
        return "\(publicURL)/commerce/\(app)/products\(components.percentEncodedQuery.map { "?\($0)" } ?? "")"
    }
}
