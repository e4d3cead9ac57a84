import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Hosted content of in-app products, for a bearer whose account is entitled to
/// the product now (`GET entitlement/<productId>` would answer 200):
///
/// - `GET|HEAD /commerce/<app>/content/<productId>`: the newest version's zip, its own URL in `Content-Location`;
/// - `GET|HEAD /commerce/<app>/content/<productId>/<contentVersion>`: that version's zip;
/// - `GET|HEAD /commerce/<app>/content/<productId>/manifest.json`: every version, newest first, with size and SHA-256.
///
/// Zips are served like packages: `ETag` (the SHA-256), `Last-Modified`, `If-None-Match`, single
/// `Range`s with `If-Range`, streamed from the blob store in fixed chunks. The answers are personal:
/// `Cache-Control: private, no-cache` and `Vary: Authorization`, so a cached copy is revalidated (and
/// the entitlement checked again) before each use. No or a bad token is the commerce routes' 401 with
/// `WWW-Authenticate`; a known product without entitlement a 403 problem (`…not-entitled`), checked
/// before the versions are looked at, so an unentitled bearer learns nothing about them; an unknown
/// app, product or version, or a product without content, a 404.
struct HostedContentController<Context: RequestContext> {
    let catalogs: CommerceCatalogCache
    let content: HostedContentStore
    let authenticator: CommerceAuthenticator
    let entitlements: EntitlementReader
    let publicURL: String
    let delivery: DownloadDelivery
    let fileIO = FileIO()

    static var manifestName: String { "manifest.json" }
    static var cacheControl: String { "private, no-cache" }
    static var notEntitled: String { "urn:souk:problem:not-entitled" }

    func addRoutes(to router: Router<Context>) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("commerce/:app/content/:productId", method: method, use: latest)
            router.on("commerce/:app/content/:productId/:version", method: method, use: versionOrManifest)
        }
    }

    /// The newest version's zip.
    @Sendable func latest(_ request: Request, context: Context) async throws -> Response {
        let (app, productId, versions) = try await entitledVersions(request, context: context)
        guard let newest = versions.first else { throw Self.noContent(productId, app: app) }
        var response = try await zip(newest, request: request, context: context)
        response.headers[.contentLocation] = url(newest)
        return response
    }

    /// One version's zip, or the manifest.
    @Sendable func versionOrManifest(_ request: Request, context: Context) async throws -> Response {
        let (app, productId, versions) = try await entitledVersions(request, context: context)
        let name = try context.parameters.require("version")
        if name == Self.manifestName {
            guard !versions.isEmpty else { throw Self.noContent(productId, app: app) }
            return manifest(app: app, productId: productId, versions: versions, request: request)
        }
        guard let version = ContentVersion(name), let match = versions.first(where: { $0.contentVersion == version }) else {
            throw Problem(.notFound, "\(productId) of \(app) has no content version \(name.prefix(40)).")
        }
        return try await zip(match, request: request, context: context)
    }

    /// Authenticates, finds the product and checks the entitlement, in that order; then the versions.
    private func entitledVersions(_ request: Request, context: Context) async throws -> (String, String, [HostedContent]) {
        let buyer = try await authenticator.buyer(request)
        let app = try context.parameters.require("app")
        let productId = try context.parameters.require("productId")
        guard let catalog = try await catalogs.state(app: app) else {
            throw Problem(.notFound, "No in-app products are sold for \(app) here.")
        }
        guard let product = catalog.product(productId) else {
            throw Problem(.notFound, "\(app) has no product \(productId.prefix(100)).")
        }
        guard try await entitlements.snapshot(buyer, catalog: catalog).products[product.id] != nil else {
            throw Problem(.forbidden, "This account is not entitled to \(product.id), so its content cannot be downloaded.",
                          type: Self.notEntitled)
        }
        return (app, product.id, try await content.versions(app: app, productId: product.id))
    }

    private func manifest(app: String, productId: String, versions: [HostedContent], request: Request) -> Response {
        let document = HostedContentManifest(app: app, productId: productId, versions: versions.map {
            HostedContentManifest.Version(contentVersion: $0.contentVersion.text, size: $0.size, sha256: $0.sha256, url: url($0))
        })
        let body = WireJSON.encode(document)
        let etag = "\"" + Digest.hex(body.sha256Prefix) + "\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: Self.cacheControl, .vary: "Authorization"]
        // The same If-None-Match rules as the zips (a list, `*`, weak comparison).
        if FileRequestConditions(ifNoneMatch: request.headers[.ifNoneMatch]).plan(size: 0, etag: etag, lastModified: 0) == .notModified {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func zip(_ content: HostedContent, request: Request, context: Context) async throws -> Response {
        let file = BlobFile(path: self.content.path(of: content), sha256: content.sha256, size: content.size,
                            lastModified: Int64(content.createdAt.timeIntervalSince1970), contentType: "application/zip")
        let disposition = "attachment; filename=\"\(content.productId)-\(content.contentVersion.text).zip\""
        var response = try await file.response(to: request, context: context, fileIO: fileIO, delivery: delivery,
                                               contentDisposition: disposition, cacheControl: Self.cacheControl)
        response.headers[.vary] = "Authorization"
        return response
    }

    private func url(_ content: HostedContent) -> String {
        "\(publicURL)/commerce/\(content.app)/content/\(content.productId)/\(content.contentVersion.text)"
    }

    private static func noContent(_ productId: String, app: String) -> Problem {
        Problem(.notFound, "\(productId) of \(app) has no hosted content.")
    }
}

/// `GET /commerce/<app>/content/<productId>/manifest.json`.
struct HostedContentManifest: Codable, Sendable, Equatable {
    struct Version: Codable, Sendable, Equatable {
        var contentVersion: String
        var size: Int64
        var sha256: String
        var url: String
    }

    var app: String
    var productId: String
    /// Newest first; the first is what `/content/<productId>` serves.
    var versions: [Version]
}

/// A blob served as a file: the response to `GET`/`HEAD` with `ETag`, `Last-Modified`, conditional
/// requests and single ranges (`FileRequestConditions` decides, as for packages), streamed in
/// fixed chunks so memory stays flat whatever the size.
struct BlobFile: Sendable {
    let path: String
    let sha256: String
    let size: Int64
    let lastModified: Int64
    let contentType: String

    static var chunkSize: Int { 128 * 1024 }

    func response(to request: Request, context: some RequestContext, fileIO: FileIO, delivery: DownloadDelivery,
                  contentDisposition: String? = nil, cacheControl: String) async throws -> Response {
        let answer = try FileAnswer(request, size: size, etag: "\"\(sha256)\"", lastModified: lastModified, contentType: contentType,
                                    contentDisposition: contentDisposition, cacheControl: cacheControl)
        if let handOff = delivery.handOff(answer, sha256: sha256, method: request.method) { return handOff }
        guard answer.status != .notModified, request.method == .get, let range = answer.range else { return answer.bodiless }
        let (status, headers, length) = (answer.status, answer.headers, answer.length)
        let source = try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context,
                                               chunkLength: Self.chunkSize)
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: Int(length)) { writer in
            try await source.write(writer)
        })
    }
}

extension Data {
    /// The first 16 bytes of the SHA-256 of these bytes (enough for an `ETag`).
    fileprivate var sha256Prefix: [UInt8] { Array(SHA256.hash(data: self).prefix(16)) }
}
