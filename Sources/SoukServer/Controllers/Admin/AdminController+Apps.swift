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
                          entered: AdminAppsValues.Entered = .init()) async throws -> Response {
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        let page = Self.page(request)
        let found = try await services.catalog.consoleApps(matching: query, limit: Self.pageSize + 1, offset: ProductLists.offset(page: page, size: Self.pageSize))
        let values = AdminAppsValues(
            query: query,
            apps: found.prefix(Self.pageSize).map { app in
                .init(id: String(app.appleItemId), name: app.name, bundleId: app.bundleId, availability: app.availability.summary,
                      access: app.access.rawValue)
            },
            none: found.isEmpty,
            pager: Self.pager(path: "/admin/apps", query: ["q": query], page: page, hasMore: found.count > Self.pageSize),
            entered: entered, error: error)
        return try await render(.adminApps, session: session, title: "Apps", page: values, status: status)
    }

    /// Adds an app (operators): AppleItemID, bundle id, name, developer, access.
    @Sendable func createApp(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let entered = AdminAppsValues.Entered(appleItemId: form["appleItemId"] ?? "", bundleId: form["bundleId"] ?? "",
                                              name: form["name"] ?? "", developer: form["developer"] ?? "")
        func refuse(_ message: String) async throws -> Response {
            try await appsPage(session: session, request: request, error: message, status: .badRequest, entered: entered)
        }
        guard let id = AppleID.parse(entered.appleItemId) else {
            return try await refuse("The AppleItemID must be a decimal number.")
        }
        guard let access = AccessPolicy(rawValue: form["access"] ?? "public") else { return try await refuse("Access must be public or account.") }
        let app: AppRecord
        do {
            app = try await CreateApp(services: developerServices)(NewApp(
                appleItemId: id, bundleId: entered.bundleId, name: entered.name, developerName: entered.developer,
                access: access), actor: Self.staffActor(session))
        } catch let error as CatalogError {
            return try await refuse(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
        return WebPage.seeOther("/admin/apps/\(app.appleItemId)?done=created")
    }

    /// The page and its forms, shared with the developer console; support only look.
    func appPage(_ session: ConsoleSession) -> ConsoleAppPage {
        ConsoleAppPage(console: .operators(canEdit: session.isOperator), services: developerServices)
    }

    /// `/admin/apps/<AppleItemID>`: facts, storefront text and media, package upload, versions, availability.
    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let app = try await requireApp(context)
        let notice = await appPage(session).notice(request, app: app, extra: Self.appNotices)
        return try await appDetailPage(session: session, app: app, notice: notice, error: nil, status: .ok)
    }

    /// What the operator's own forms on the app's page (creating it, its availability) leave as `?done=`.
    static var appNotices: [String: String] {
        ["created": "App created. Add its storefront text, icon and a package below.", "taken-down": "App taken down.",
         "available": "App available again."]
    }

    func requireApp(_ context: Context) async throws -> AppRecord {
        guard let id = context.parameters.get("item").flatMap(AppleID.parse) else { throw Problem(.notFound, "No app has this AppleItemID.") }
        do {
            return try await services.catalog.appRecord(appleItemId: id)
        } catch CatalogError.notFound {
            throw Problem(.notFound, "No app has this AppleItemID.")
        }
    }

    func appDetailPage(session: ConsoleSession, app: AppRecord, notice: String?, error: String?, status: HTTPResponse.Status) async throws -> Response {
        try await render(.adminApp, session: session, title: app.name,
                         page: try await appPage(session).values(app: app, notice: notice, error: error), status: status)
    }

    /// The forms of the page (operators; `ConsoleRoutes.operators` refuses support's POSTs).
    private func appForms(_ session: ConsoleSession, _ context: Context) async throws -> ConsoleAppPage.Forms {
        let app = try await requireApp(context)
        return appPage(session).forms(actor: Self.staffActor(session), app: app, csrfToken: session.csrfToken) { error, status in
            try await appDetailPage(session: session, app: app, notice: nil, error: error, status: status)
        }
    }

    @Sendable func saveDetails(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        return try await appForms(session, context).saveText(form)
    }

    @Sendable func uploadMedia(_ request: Request, context: Context) async throws -> Response {
        try await appForms(try context.requireConsoleSession(), context).saveMedia(request)
    }

    @Sendable func uploadPackage(_ request: Request, context: Context) async throws -> Response {
        try await appForms(try context.requireConsoleSession(), context).uploadPackage(request)
    }

    @Sendable func withdrawVersion(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        return try await appForms(session, context).setWithdrawn(true, version: context.parameters.get("version"), form: form)
    }

    @Sendable func reinstateVersion(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        return try await appForms(session, context).setWithdrawn(false, version: context.parameters.get("version"), form: form)
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
        return WebPage.seeOther("/admin/apps/\(app.appleItemId)?done=\(availability == .available ? "available" : "taken-down")")
    }
}
