import Hummingbird
import SoukCore
import SoukStore

/// `GET /apps/<appleItemId>/icon`: the app's PNG icon, immutable under its ETag.
struct AppIconController<Context: RequestContext> {
    let catalog: CatalogStore
    let blobs: BlobStore
    let fileIO = FileIO()

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(":appleItemId/icon", use: icon)
        group.head(":appleItemId/icon", use: icon)
    }

    @Sendable func icon(_ request: Request, context: Context) async throws -> Response {
        guard let id = AppleID.parse(try context.parameters.require("appleItemId")),
              let app = try? await catalog.app(appleItemId: id), let sha256 = app.iconSHA256 else {
            throw Problem(.notFound, "No icon for this app.")
        }
        let etag = "\"\(sha256)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "public, max-age=3600", .contentType: "image/png"]
        if let ifNoneMatch = request.headers[.ifNoneMatch], ifNoneMatch.contains(etag) || ifNoneMatch == "*" {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        let body = try await fileIO.loadFile(path: blobs.path(for: sha256), context: context)
        if request.method == .head {
            headers[.contentLength] = body.contentLength.map(String.init)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
