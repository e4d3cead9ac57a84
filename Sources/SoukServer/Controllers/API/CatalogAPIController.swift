import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The storefront for the marketplace's own app, as JSON (docs/api.md, "The marketplace app's API"):
///
/// - `GET /api/v1/apps?query=&category=&page=&pageSize=`: the available apps, ranked as the
///   storefront's search when there is a query, else by name; `{"apps": […], "next": URL | null}`.
/// - `GET /api/v1/apps/<appleItemId>`: one app with its page's facts; `404` for one not available.
/// - `GET /api/v1/categories`: the categories that have apps. `GET /api/v1/featured`: the home page's.
///
/// Lists answer from the same in-memory indexes as the HTML pages (`StorefrontIndex` for order and
/// search, `CatalogIndex` for versions): no catalog query per request, none per app. With a bearer
/// token each app carries `access` (`APIViewer`: a few queries per page, never per app).
struct CatalogAPIController<Context: RequestContext> {
    let storefront: StorefrontIndex
    let index: CatalogIndex
    let catalog: CatalogStore
    let commerceCatalogs: CommerceCatalogCache
    let viewers: APIViewerReader
    let publicURL: String

    func addRoutes(to router: Router<Context>) {
        router.get("api/v1/apps", use: apps)
        router.get("api/v1/apps/:appleItemId", use: app)
        router.get("api/v1/categories", use: categories)
        router.get("api/v1/featured", use: featured)
    }

    /// `GET /api/v1/apps`: one page of the catalog, a category, or a search.
    @Sendable func apps(_ request: Request, context: Context) async throws -> Response {
        let query = try APIListQuery(request, list: true)
        let listed = try await storefront.catalog()
        var ids: [UInt64]
        if !query.query.isEmpty {
            ids = listed.search(query.query)
            if let category = query.category { ids = ids.filter { listed.apps[$0]?.category == category.slug } }
        } else if let category = query.category {
            ids = listed.byCategory[category.slug] ?? []
        } else {
            ids = listed.byName
        }
        let page = query.page(of: ids, publicURL: publicURL)
        return try await list(Array(page.ids), listed: listed, next: page.next, query: query, request: request)
    }

    /// `GET /api/v1/featured`: the home page's featured apps, in the operator's order.
    @Sendable func featured(_ request: Request, context: Context) async throws -> Response {
        let query = try APIListQuery(request, list: false)
        let listed = try await storefront.catalog()
        return try await list(listed.featured.map(\.appleItemId), listed: listed, next: nil, query: query, request: request)
    }

    /// `GET /api/v1/categories`: the categories that have apps, by name, with their counts.
    @Sendable func categories(_ request: Request, context: Context) async throws -> Response {
        let counts = try await storefront.catalog().categoryCounts
        let categories = AppCategory.allCases.filter { counts[$0.slug] != nil }.sorted { $0.displayName < $1.displayName }.map {
            APICategory(slug: $0.slug, name: $0.displayName, count: counts[$0.slug] ?? 0, apps: "\(publicURL)/api/v1/apps?category=\($0.slug)")
        }
        return APIResponse.cached(["categories": categories], request: request, personal: false)
    }

    /// `GET /api/v1/apps/<appleItemId>`: the app page's facts (`installedVersionId` lets `access`
    /// say `update` or `open`).
    @Sendable func app(_ request: Request, context: Context) async throws -> Response {
        let query = try APIListQuery(request, list: false)
        var installedVersionId: UInt64?
        if let text = request.uri.queryParameters.get("installedVersionId") {
            guard let id = AppleID.parse(text) else { throw Problem(.badRequest, "installedVersionId is an AppleVersionID (digits).") }
            installedVersionId = id
        }
        let unavailable = Problem(.notFound, "This app is not available.")
        guard let id = AppleID.parse(try context.parameters.require("appleItemId")) else { throw unavailable }
        let app: AppRecord
        do {
            app = try await catalog.appRecord(appleItemId: id)
        } catch CatalogError.notFound {
            throw unavailable
        }
        guard app.availability == .available else { throw unavailable }
        let indexed = try await index.app(id)
        let viewer = try await viewers.viewer(request, apps: indexed.map { [$0] } ?? [])
        var size: Int64?
        if let newest = indexed?.versions.first,
           let version = try await catalog.versions(of: app).first(where: { $0.appleVersionId == newest.appleVersionId }) {
            size = try await catalog.files(of: version).filter { $0.path.hasPrefix("variant/") }.map(\.size).max()
        }
        let products = try await commerceCatalogs.state(app: app.bundleId)?.catalog.products ?? []
        var answer = try await builder().detail(app, indexed: indexed, size: size, products: products)
        if let viewer, let indexed {
            answer.access = viewer.access(indexed, platform: query.platform, osVersion: query.osVersion, installedVersionId: installedVersionId)
        }
        return APIResponse.cached(answer, request: request, personal: viewer != nil)
    }

    /// One page of apps by id, with `access` for the bearer's person.
    private func list(_ ids: [UInt64], listed: StorefrontCatalog, next: String?, query: APIListQuery, request: Request) async throws -> Response {
        let indexed = try await index.apps(ids)
        let viewer = try await viewers.viewer(request, apps: ids.compactMap { indexed[$0] })
        let builder = try await builder()
        let apps = ids.compactMap { id -> APIApp? in
            guard let app = listed.apps[id] else { return nil }
            var entry = builder.summary(app, indexed: indexed[id])
            if let viewer, let catalogApp = indexed[id] {
                entry.access = viewer.access(catalogApp, platform: query.platform, osVersion: query.osVersion)
            }
            return entry
        }
        return APIResponse.cached(APIAppList(apps: apps, next: next), request: request, personal: viewer != nil)
    }

    private func builder() async throws -> APIAppBuilder {
        APIAppBuilder(publicURL: publicURL, marketplace: try await commerceCatalogs.state(app: AppPricing.marketplaceApp))
    }
}
