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
        guard let id = AppleID.parse(try context.parameters.require("appleItemId")) else { throw Problem(.notFound, "No icon for this app.") }
        let app: AppRecord
        do {
            app = try await catalog.appRecord(appleItemId: id)
        } catch CatalogError.notFound {
            throw Problem(.notFound, "No icon for this app.")
        }  // any other error (the database is down) is a 503, never a 404
        guard let sha256 = app.iconSHA256 else { throw Problem(.notFound, "No icon for this app.") }
        return try await PNGBlob.response(sha256, cacheControl: "public, max-age=3600", request: request, context: context,
                                          blobs: blobs, fileIO: fileIO)
    }
}
