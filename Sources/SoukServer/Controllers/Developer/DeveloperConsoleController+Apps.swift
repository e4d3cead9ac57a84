import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An organisation's app in the developer console: its page (facts, storefront text and media,
/// package upload, versions with their review state), and the forms that change them.
extension DeveloperConsoleController {
    func addAppRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("apps/:item", use: appPage)
        routes.members.post("apps/:item/details", use: saveDetails)
        routes.members.post("apps/:item/media", use: uploadMedia)
        routes.members.post("apps/:item/packages", use: uploadPackage)
        routes.members.post("apps/:item/versions/:version/withdraw", use: withdrawVersion)
        routes.members.post("apps/:item/versions/:version/reinstate", use: reinstateVersion)
    }

    static var appNotices: [String: String] {
        ["details": "Storefront text saved.", "media": "Media saved.", "withdrawn": "Version withdrawn.", "reinstated": "Version offered again.",
         "already": "Nothing changed: that version was already uploaded."]
    }

    /// `/developer/apps/<AppleItemID>`.
    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let app = try await services.ownership.app(try Self.appleItemId(context), for: session.actor)
        var notice = request.uri.queryParameters["done"].flatMap { Self.appNotices[String($0)] }
        if let imported = request.uri.queryParameters["imported"].flatMap({ AppleID.parse(String($0)) }),
           let version = try? await services.catalog.versionRecord(appleItemId: app.appleItemId, appleVersionId: imported) {
            notice = "Uploaded version \(version.shortVersionString) (\(version.bundleVersion), AppleVersionID \(imported))"
                + (version.reviewState == .inReview ? ": it is in review, and offered once the marketplace approves it." : ".")
        }
        return try await appDetailPage(session: session, app: app, notice: notice, error: nil, status: .ok)
    }

    /// What a version's state says to its developer: review first, then whether it is offered.
    static func versionState(_ version: AppVersionRecord, format: (Date) -> String) -> String {
        switch version.reviewState {
        case .inReview: return "in review"
        case .rejected: return "rejected" + (version.reviewReason.map { ": \($0)" } ?? "")
        case .released:
            return version.withdrawnAt.map { "withdrawn \(format($0))" + (version.withdrawnReason.map { ": \($0)" } ?? "") } ?? "offered"
        }
    }

    func appDetailPage(session: DeveloperSession, app: AppRecord, notice: String?, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let format = WebController<Context>.format
        let versions = try await services.catalog.allVersions(of: app)
        let media = app.media ?? AppMedia()
        func thumbnail(_ image: AppMedia.Image, alt: String) -> [String: String] {
            let small = image.variants.first { $0.width >= 120 } ?? image.variants.last
            return ["src": "/media/\(small?.sha256 ?? image.sha256).png", "alt": alt]
        }
        var values: [String: Any] = [
            "id": String(app.appleItemId), "name": app.name, "bundleId": app.bundleId, "availability": app.availability.summary,
            "subtitle": app.subtitle, "description": app.appDescription, "whatsNew": app.whatsNew ?? "",
            "categories": AppCategory.allCases.map { ["slug": $0.slug, "name": $0.displayName, "selected": $0.slug == app.category] },
            "versions": versions.map { version in
                ["version": String(version.appleVersionId), "short": version.shortVersionString, "build": version.bundleVersion,
                 "uploaded": format(version.releaseDate), "withdrawn": version.withdrawnAt != nil,
                 "state": Self.versionState(version, format: format), "item": String(app.appleItemId), "csrfToken": session.csrfToken]
            },
            "reviewNewVersions": services.reviewNewVersions,
            "maxPackageMiB": String(AdminController<Context>.maxPackageUploadBytes >> 20),
            "scripts": [WebScripts.upload.path],
        ]
        values["icon"] = media.icon.map { thumbnail($0, alt: "\(app.name) icon") }
        values["screenshots"] = AppMedia.Family.allCases.compactMap { family -> [String: Any]? in
            let images = media.screenshots(for: family)
            guard !images.isEmpty else { return nil }
            return ["family": family.displayName, "images": images.enumerated().map { index, image in
                thumbnail(image, alt: "\(family.displayName) screenshot \(index + 1)")
            }]
        }
        values["notice"] = notice
        values["error"] = error
        return try await render(.developerApp, session: session, title: app.name, values, status: status)
    }

    /// Subtitle, category, description and what's new.
    @Sendable func saveDetails(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        let id = try Self.appleItemId(context)
        do {
            try await SaveAppText(services: services)(actor: session.actor, appleItemId: id, .init(
                subtitle: form["subtitle"] ?? "", category: form["category"] ?? "", description: form["description"] ?? "",
                whatsNew: form["whatsNew"] ?? ""))
        } catch DeveloperOperationError.invalid(_, let message) {
            let app = try await services.ownership.app(id, for: session.actor)
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/developer/apps/\(id)?done=details")
    }

    /// Icon and screenshots, as `multipart/form-data` (`icon`, `iphone`, `ipad`).
    @Sendable func uploadMedia(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let app = try await services.ownership.app(try Self.appleItemId(context), for: session.actor)
        let form = try await MultipartForm.read(request, csrfToken: session.csrfToken, folder: services.workDir,
                                                maxFileBytes: AdminController<Context>.maxMediaUploadBytes)
        defer { form.cleanUp() }
        do {
            try await SaveAppMedia(services: services)(actor: session.actor, appleItemId: app.appleItemId,
                                                       icon: form.mediaIcon, screenshots: form.mediaScreenshots)
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/developer/apps/\(app.appleItemId)?done=media")
    }

    /// A package zip, as `multipart/form-data` field `package`, streamed to a temporary file and
    /// imported like `souk packages import`; it must be this app's.
    @Sendable func uploadPackage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        // Ownership before a byte of the body is read: another organisation's app is 404 at once.
        let app = try await services.ownership.app(try Self.appleItemId(context), for: session.actor)
        let form = try await MultipartForm.read(request, csrfToken: session.csrfToken, folder: services.workDir,
                                                maxFileBytes: AdminController<Context>.maxPackageUploadBytes)
        defer { form.cleanUp() }
        guard let file = form.files["package"]?.first else {
            return try await appDetailPage(session: session, app: app, notice: nil, error: "Choose a package (.zip) to upload.", status: .badRequest)
        }
        let upload: PackageUpload
        do {
            upload = try await services.operations.uploadPackage(actor: session.actor, appleItemId: app.appleItemId, appleVersionId: nil,
                                                                 at: file.path, upload: file.filename)
        } catch DeveloperOperationError.invalid(let field, let problem) {
            // "package" is the uploaded file as a whole: name it as the developer called it.
            let location = field == "package" ? file.filename : field
            return try await appDetailPage(session: session, app: app, notice: nil,
                                           error: "Package rejected: \(location): \(problem)", status: .unprocessableContent)
        }
        guard upload.imported else { return WebController<Context>.seeOther("/developer/apps/\(app.appleItemId)?done=already") }
        return WebController<Context>.seeOther("/developer/apps/\(app.appleItemId)?imported=\(upload.version.appleVersionId)")
    }

    @Sendable func withdrawVersion(_ request: Request, context: Context) async throws -> Response {
        try await setWithdrawn(true, request, context: context)
    }

    @Sendable func reinstateVersion(_ request: Request, context: Context) async throws -> Response {
        try await setWithdrawn(false, request, context: context)
    }

    private func setWithdrawn(_ withdrawn: Bool, _ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        let id = try Self.appleItemId(context)
        guard let version = context.parameters.get("version").flatMap(AppleID.parse) else {
            throw DeveloperOperationError.notFound("This app has no version with this AppleVersionID.")
        }
        do {
            try await SetVersionWithdrawn(services: services)(withdrawn, actor: session.actor, appleItemId: id, appleVersionId: version,
                                                              reason: form["reason"] ?? "")
        } catch DeveloperOperationError.invalid(_, let message) {
            let app = try await services.ownership.app(id, for: session.actor)
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/developer/apps/\(id)?done=\(withdrawn ? "withdrawn" : "reinstated")")
    }
}
