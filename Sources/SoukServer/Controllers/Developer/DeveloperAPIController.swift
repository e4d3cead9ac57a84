import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The developer API, `/api/v1/developer/…` (docs/developers.md): a developer organisation's API key
/// releases versions, applies its in-app catalogs, reads its sales and manages grants and webhooks.
/// The route group's `DeveloperKeyMiddleware` turns the key into the request's actor; each handler
/// decodes, calls one `DeveloperOperations` operation (which checks the actor's reach and writes the
/// audit entry) and encodes.
struct DeveloperAPIController {
    let operations: DeveloperOperations
    /// Where uploads are streamed before the import reads them (the cleanup removes leftovers).
    let workDir: String
    /// The largest catalog file (the server's `maxBodyBytes`).
    let maxBodyBytes: Int

    func addRoutes(to group: RouterGroup<DeveloperRequestContext>) {
        group.put("apps/:appleItemId/versions/:appleVersionId/package", use: uploadPackage)
        group.get("apps", use: apps)
        group.get("apps/:appleItemId/versions", use: versions)
        group.get("catalogs/:app", use: catalog)
        group.put("catalogs/:app", use: applyCatalog)
        group.get("catalogs/:app/purchases", use: purchases)
        group.get("catalogs/:app/events", use: events)
        group.post("catalogs/:app/grants", use: grant)
        group.delete("grants/:grantId", use: revokeGrant)
        group.get("catalogs/:app/webhooks", use: webhooks)
        group.post("catalogs/:app/webhooks", use: addWebhook)
        group.delete("webhooks/:webhookId", use: removeWebhook)
        group.get("exports/:kind", use: export)
    }

    /// Whether `path` is the package upload, whose body is streamed to disk and so is not held to
    /// `maxBodyBytes` (`BodyLimitMiddleware`).
    static func isPackageUpload(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 9 && parts[1] == "api" && parts[2] == "v1" && parts[3] == "developer" && parts[4] == "apps"
            && parts[6] == "versions" && parts[8] == "package"
    }

    /// `PUT apps/<appleItemId>/versions/<appleVersionId>/package`: the zip is streamed to disk, then
    /// imported like `souk packages import`; `201` with the version and its review state.
    @Sendable func uploadPackage(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        let item = try Self.appleID(context, "appleItemId"), version = try Self.appleID(context, "appleVersionId")
        // Who may upload here is known before the first byte is read.
        try await operations.ownership.reach(appleItemId: item, for: actor, scope: .packagesWrite)
        let path = try await UploadFile.stream(request.body, into: workDir,
                                               maxBytes: ConsoleAppPage.maxPackageUploadBytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let upload = try await operations.uploadPackage(actor: actor, appleItemId: item, appleVersionId: version, at: path)
        return Self.json(DeveloperVersionDocument(upload.version), status: .created)
    }

    /// `GET apps`: the organisation's apps (with version counts) and catalogs.
    @Sendable func apps(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let (apps, catalogs) = try await operations.apps(actor: try context.requireActor())
        return Self.json(DeveloperAppList(apps: apps, catalogs: catalogs))
    }

    /// `GET apps/<appleItemId>/versions`: newest first, each with its review state and reason.
    @Sendable func versions(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let versions = try await operations.versions(actor: try context.requireActor(), appleItemId: try Self.appleID(context, "appleItemId"))
        return Self.json(DeveloperVersionList(versions: versions.map(DeveloperVersionDocument.init)))
    }

    /// `GET catalogs/<app>`: the catalog file as `souk catalog apply` reads it.
    @Sendable func catalog(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let state = try await operations.catalog(actor: try context.requireActor(), app: try Self.app(context))
        return Response.json(bytes: Array(CatalogFile.encode(state.catalog).utf8), cacheControl: "no-store")
    }

    /// `PUT catalogs/<app>[?dryRun=true]`: applies the catalog file; the diff, written or not.
    @Sendable func applyCatalog(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        let app = try Self.app(context)
        let dryRun: Bool
        switch request.uri.queryParameters["dryRun"].map(String.init) {
        case nil, "false": dryRun = false
        case "true": dryRun = true
        default: throw DeveloperOperationError.badParameter(field: "dryRun", "must be true or false")
        }
        let body = try await request.collectBody(upTo: maxBodyBytes)
        let report = try await operations.applyCatalog(actor: actor, app: app, file: Array(buffer: body), dryRun: dryRun)
        return Self.json(DeveloperCatalogApplyDocument(report))
    }

    /// `GET catalogs/<app>/purchases?cursor=&limit=`.
    @Sendable func purchases(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let (cursor, limit) = try Self.page(request)
        let page = try await operations.purchases(actor: try context.requireActor(), app: try Self.app(context), cursor: cursor, limit: limit)
        return Self.json(DeveloperPageDocument(items: page.items.map(DeveloperPurchaseDocument.init), nextCursor: page.nextCursor))
    }

    /// `GET catalogs/<app>/events?cursor=&limit=`.
    @Sendable func events(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let (cursor, limit) = try Self.page(request)
        let page = try await operations.events(actor: try context.requireActor(), app: try Self.app(context), cursor: cursor, limit: limit)
        return Self.json(DeveloperPageDocument(items: page.items.map(DeveloperEventDocument.init), nextCursor: page.nextCursor))
    }

    /// `POST catalogs/<app>/grants`: `201` with the grant.
    @Sendable func grant(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        let app = try Self.app(context)
        let body = try await request.decode(as: DeveloperGrantRequest.self, context: context)
        var until: Date?
        if let text = body.until {
            guard let parsed = RFC3339.parse(text) ?? (text.count == 10 ? RFC3339.parse(text + "T00:00:00Z") : nil) else {
                throw DeveloperOperationError.invalid(field: "until", "must be an RFC 3339 date (2027-01-01) or date-time (2027-01-01T00:00:00Z)")
            }
            until = parsed
        }
        let made = try await operations.grant(actor: actor, app: app, accountToken: body.accountToken, entitlement: body.entitlement, until: until)
        return Self.json(DeveloperGrantDocument(made), status: .created)
    }

    /// `DELETE grants/<id>`: `204`, also for a grant already revoked.
    @Sendable func revokeGrant(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        guard let id = context.parameters.get("grantId").flatMap(UUID.init(uuidString:)) else {
            throw DeveloperOperationError.notFound("No such grant is yours.")
        }
        try await operations.revokeGrant(actor: actor, id: id)
        return Response(status: .noContent)
    }

    /// `GET catalogs/<app>/webhooks`.
    @Sendable func webhooks(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let endpoints = try await operations.webhooks(actor: try context.requireActor(), app: try Self.app(context))
        return Self.json(DeveloperWebhookList(webhooks: endpoints.map(DeveloperWebhookDocument.init)))
    }

    /// `POST catalogs/<app>/webhooks`: `201` with the endpoint (never its secret).
    @Sendable func addWebhook(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        let app = try Self.app(context)
        let body = try await request.decode(as: DeveloperWebhookRequest.self, context: context)
        let endpoint = try await operations.addWebhook(actor: actor, app: app, url: body.url, secret: body.secret)
        return Self.json(DeveloperWebhookDocument(endpoint), status: .created)
    }

    /// `DELETE webhooks/<id>`: `204`.
    @Sendable func removeWebhook(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        guard let id = context.parameters.get("webhookId").flatMap(UUID.init(uuidString:)) else {
            throw DeveloperOperationError.notFound("No such webhook is yours.")
        }
        try await operations.removeWebhook(actor: actor, id: id)
        return Response(status: .noContent)
    }

    // MARK: Decoding and encoding

    /// An AppleItemID or AppleVersionID of the path; one that cannot be is no app or version of theirs.
    static func appleID(_ context: DeveloperRequestContext, _ name: String) throws -> UInt64 {
        guard let id = context.parameters.get(name).flatMap(AppleID.parse) else {
            throw DeveloperOperationError.notFound("No app or version with that AppleID is yours.")
        }
        return id
    }

    static func app(_ context: DeveloperRequestContext) throws -> String {
        guard let app = context.parameters.get("app"), !app.isEmpty else { throw DeveloperOperationError.notFound("No such catalog is yours.") }
        return app
    }

    static func page(_ request: Request) throws -> (cursor: String?, limit: Int?) {
        let query = request.uri.queryParameters
        var limit: Int?
        if let text = query["limit"] {
            guard let value = Int(String(text)) else { throw DeveloperOperationError.badParameter(field: "limit", "must be from 1 to 200") }
            limit = value
        }
        return (query["cursor"].map(String.init), limit)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response.json(bytes: WireJSON.encode(value), status: status, cacheControl: "no-store")
    }
}
