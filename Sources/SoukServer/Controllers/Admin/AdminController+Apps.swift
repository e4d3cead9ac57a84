import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Apps in the console: the list, creating one, its storefront text and media, uploading a
/// package from the browser (the same import as `souk packages import`), withdrawing and
/// reinstating versions, taking the app down and reinstating it. Looking is for every console role;
/// every change is for operators (support's POSTs answer 403) and is written to the audit log.
extension AdminController {
    /// The largest package upload (the import itself checks every file against its manifest).
    static var maxPackageUploadBytes: Int { 4 << 30 }
    /// The largest upload of icon and screenshots together.
    static var maxMediaUploadBytes: Int { 96 << 20 }

    func addAppRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("apps", use: apps)
        routes.operators.post("apps", use: createApp)
        routes.staff.get("apps/:item", use: appPage)
        routes.operators.post("apps/:item/details", use: saveDetails)
        routes.operators.post("apps/:item/media", use: uploadMedia)
        routes.operators.post("apps/:item/packages", use: uploadPackage)
        routes.operators.post("apps/:item/versions/:version/withdraw", use: withdrawVersion)
        routes.operators.post("apps/:item/versions/:version/reinstate", use: reinstateVersion)
        routes.operators.post("apps/:item/takedown", use: takeDown)
        routes.operators.post("apps/:item/reinstate", use: reinstateApp)
    }

    /// `/admin/apps?q=`: apps by name, bundle id or AppleItemID, 50 a page, and the form to add one.
    @Sendable func apps(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        return try await appsPage(session: session, request: request, error: nil, status: .ok)
    }

    private func appsPage(session: ConsoleSession, request: Request, error: String?, status: HTTPResponse.Status,
                          entered: [String: String] = [:]) async throws -> Response {
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        let page = Self.page(request)
        let found = try await runtime.catalog.consoleApps(matching: query, limit: Self.pageSize + 1, offset: ProductLists.offset(page: page, size: Self.pageSize))
        var values: [String: Any] = [
            "query": query,
            "apps": found.prefix(Self.pageSize).map { app in
                ["id": String(app.appleItemId), "name": app.name, "bundleId": app.bundleId, "availability": app.availability.summary,
                 "access": app.access.rawValue]
            },
            "none": found.isEmpty,
            "pager": Self.pager(path: "/admin/apps", query: ["q": query], page: page, hasMore: found.count > Self.pageSize),
            "entered": entered,
        ]
        values["error"] = error
        return try await render(.adminApps, session: session, title: "Apps", values, status: status)
    }

    /// Adds an app (operators): AppleItemID, bundle id, name, developer, access.
    @Sendable func createApp(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let entered = ["appleItemId": form["appleItemId"] ?? "", "bundleId": form["bundleId"] ?? "", "name": form["name"] ?? "",
                       "developer": form["developer"] ?? ""]
        func refuse(_ message: String) async throws -> Response {
            try await appsPage(session: session, request: request, error: message, status: .badRequest, entered: entered)
        }
        guard let id = AppleID.parse(entered["appleItemId"] ?? "") else {
            return try await refuse("The AppleItemID must be a decimal number.")
        }
        guard let access = AccessPolicy(rawValue: form["access"] ?? "public") else { return try await refuse("Access must be public or account.") }
        let app: AppRecord
        do {
            app = try await CreateApp(services: developerServices)(NewApp(
                appleItemId: id, bundleId: entered["bundleId"] ?? "", name: entered["name"] ?? "", developerName: entered["developer"] ?? "",
                access: access), actor: Self.staffActor(session))
        } catch let error as CatalogError {
            return try await refuse(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
        return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?done=created")
    }

    /// `/admin/apps/<AppleItemID>`: facts, storefront text and media, package upload, versions, availability.
    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let app = try await requireApp(context)
        var notice = request.uri.queryParameters["done"].flatMap { Self.appNotices[String($0)] }
        if let imported = request.uri.queryParameters["imported"].flatMap({ AppleID.parse(String($0)) }),
           let version = try? await runtime.catalog.versionRecord(appleItemId: app.appleItemId, appleVersionId: imported) {
            notice = "Imported version \(version.shortVersionString) (\(version.bundleVersion), AppleVersionID \(imported))."
        }
        return try await appDetailPage(session: session, app: app, notice: notice, error: nil, status: .ok)
    }

    static var appNotices: [String: String] {
        ["created": "App created. Add its storefront text, icon and a package below.", "details": "Storefront text saved.",
         "media": "Media saved.", "withdrawn": "Version withdrawn.", "reinstated": "Version offered again.",
         "taken-down": "App taken down.", "available": "App available again.", "already": "Nothing changed: that version was already imported."]
    }

    func requireApp(_ context: Context) async throws -> AppRecord {
        guard let id = context.parameters.get("item").flatMap(AppleID.parse) else { throw Problem(.notFound, "No app has this AppleItemID.") }
        do {
            return try await runtime.catalog.appRecord(appleItemId: id)
        } catch CatalogError.notFound {
            throw Problem(.notFound, "No app has this AppleItemID.")
        }
    }

    func appDetailPage(session: ConsoleSession, app: AppRecord, notice: String?, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let format = WebController<Context>.format
        let versions = try await runtime.catalog.versions(of: app).sorted { $0.releaseDate > $1.releaseDate }
        let media = app.media ?? AppMedia()
        func thumbnail(_ image: AppMedia.Image, alt: String) -> [String: String] {
            let small = image.variants.first { $0.width >= 120 } ?? image.variants.last
            return ["src": "/media/\(small?.sha256 ?? image.sha256).png", "alt": alt]
        }
        var values: [String: Any] = [
            "id": String(app.appleItemId), "name": app.name, "bundleId": app.bundleId, "developer": app.developerName,
            "access": app.access.rawValue, "availability": app.availability.summary, "available": app.availability == .available,
            "subtitle": app.subtitle, "description": app.appDescription,
            "whatsNew": app.whatsNew ?? "", "price": app.pricing.prices.isEmpty ? "Free" : app.pricing.prices.map(\.formatted).joined(separator: ", "),
            "categories": AppCategory.allCases.map { ["slug": $0.slug, "name": $0.displayName, "selected": $0.slug == app.category] },
            "versions": versions.map { version in
                ["version": String(version.appleVersionId), "short": version.shortVersionString, "build": version.bundleVersion,
                 "released": format(version.releaseDate), "withdrawn": version.withdrawnAt != nil,
                 "state": version.withdrawnAt.map { "withdrawn \(format($0))" + (version.withdrawnReason.map { ": \($0)" } ?? "") } ?? "offered",
                 "item": String(app.appleItemId), "csrfToken": session.csrfToken, "isOperator": session.isOperator]
            },
            "storefrontURL": "/apps/\(app.appleItemId)",
            "maxPackageMiB": String(Self.maxPackageUploadBytes >> 20),
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
        values["takedownReason"] = app.takedownReason.flatMap { $0.isEmpty ? nil : $0 }  // an empty string would still open its section
        if session.isOperator { values["scripts"] = [WebScripts.upload.path] }
        return try await render(.adminApp, session: session, title: app.name, values, status: status)
    }

    /// Subtitle, category, description and what's new (operators), through `SaveAppText` as in the
    /// developer console.
    @Sendable func saveDetails(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let app = try await requireApp(context)
        do {
            try await SaveAppText(services: developerServices)(actor: Self.staffActor(session), appleItemId: app.appleItemId, .init(
                subtitle: form["subtitle"] ?? "", category: form["category"] ?? "", description: form["description"] ?? "",
                whatsNew: form["whatsNew"] ?? ""))
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?done=details")
    }

    /// Icon and screenshots (operators), as `multipart/form-data`: `icon` (one square PNG),
    /// `iphone` and `ipad` (PNGs, in order; each family sent replaces that family's list), through
    /// `SaveAppMedia` as in the developer console.
    @Sendable func uploadMedia(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let app = try await requireApp(context)
        let form = try await MultipartForm.read(request, csrfToken: session.csrfToken, folder: runtime.config.workDir,
                                                maxFileBytes: Self.maxMediaUploadBytes)
        defer { form.cleanUp() }
        do {
            try await SaveAppMedia(services: developerServices)(actor: Self.staffActor(session), appleItemId: app.appleItemId,
                                                                icon: form.mediaIcon, screenshots: form.mediaScreenshots)
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?done=media")
    }

    /// A package zip (operators), as `multipart/form-data` field `package`: imported by the operation
    /// of `souk packages import` (`DeveloperOperations.uploadPackage`), and it must be this app's.
    /// Ends on the app's page naming the version.
    @Sendable func uploadPackage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let app = try await requireApp(context)
        let form = try await MultipartForm.read(request, csrfToken: session.csrfToken, folder: runtime.config.workDir,
                                                maxFileBytes: Self.maxPackageUploadBytes)
        defer { form.cleanUp() }
        guard let file = form.files["package"]?.first else {
            return try await appDetailPage(session: session, app: app, notice: nil, error: "Choose a package (.zip) to upload.", status: .badRequest)
        }
        let upload: PackageUpload
        do {
            upload = try await developerServices.operations.uploadPackage(actor: Self.staffActor(session), appleItemId: app.appleItemId,
                                                                          appleVersionId: nil, at: file.path, upload: file.filename)
        } catch DeveloperOperationError.invalid(let field, let problem) {
            // "package" is the uploaded file as a whole: name it as the operator called it.
            let location = field == "package" ? file.filename : field
            return try await appDetailPage(session: session, app: app, notice: nil,
                                           error: "Package rejected: \(location): \(problem)", status: .unprocessableContent)
        }
        guard upload.imported else { return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?done=already") }
        return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?imported=\(upload.version.appleVersionId)")
    }

    @Sendable func withdrawVersion(_ request: Request, context: Context) async throws -> Response {
        try await setWithdrawn(true, request, context: context)
    }

    @Sendable func reinstateVersion(_ request: Request, context: Context) async throws -> Response {
        try await setWithdrawn(false, request, context: context)
    }

    private func setWithdrawn(_ withdrawn: Bool, _ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let app = try await requireApp(context)
        guard let versionId = context.parameters.get("version").flatMap(AppleID.parse) else {
            throw Problem(.notFound, "This app has no version with this AppleVersionID.")
        }
        do {
            try await SetVersionWithdrawn(services: developerServices)(withdrawn, actor: Self.staffActor(session), appleItemId: app.appleItemId,
                                                                       appleVersionId: versionId, reason: form["reason"] ?? "")
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?done=\(withdrawn ? "withdrawn" : "reinstated")")
    }

    @Sendable func takeDown(_ request: Request, context: Context) async throws -> Response {
        try await setAvailability(.takenDown, request, context: context)
    }

    @Sendable func reinstateApp(_ request: Request, context: Context) async throws -> Response {
        try await setAvailability(.available, request, context: context)
    }

    private func setAvailability(_ availability: Availability, _ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let app = try await requireApp(context)
        do {
            try await SetAppAvailability(services: developerServices)(availability, actor: Self.staffActor(session),
                                                                     appleItemId: app.appleItemId, reason: form["reason"])
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await appDetailPage(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
        return WebController<Context>.seeOther("/admin/apps/\(app.appleItemId)?done=\(availability == .available ? "available" : "taken-down")")
    }
}
