import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An organisation's app in the developer console: its page (facts, storefront text and media,
/// package upload, versions with their review state), and the forms that change them, all
/// `ConsoleAppPage`'s as in the operator console.
extension DeveloperConsoleController {
    func addAppRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("apps/:item", use: appPage)
        routes.members.post("apps/:item/details", use: saveDetails)
        routes.members.post("apps/:item/media", use: uploadMedia)
        routes.members.post("apps/:item/packages", use: uploadPackage)
        routes.members.post("apps/:item/versions/:version/withdraw", use: withdrawVersion)
        routes.members.post("apps/:item/versions/:version/reinstate", use: reinstateVersion)
    }

    /// The page and its forms, shared with the operator console.
    var appPage: ConsoleAppPage { ConsoleAppPage(console: .developers(reviewNewVersions: services.reviewNewVersions), services: services) }

    /// `/developer/apps/<AppleItemID>`.
    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let app = try await services.ownership.app(try Self.appleItemId(context), for: session.actor)
        return try await appDetailPage(session: session, app: app, notice: await appPage.notice(request, app: app), error: nil, status: .ok)
    }

    func appDetailPage(session: DeveloperSession, app: AppRecord, notice: String?, error: String?, status: HTTPResponse.Status) async throws -> Response {
        try await render(.developerApp, session: session, title: app.name, page: try await appPage.values(app: app, notice: notice, error: error),
                         status: status)
    }

    /// The forms of the page, for this member on one of their organisation's apps (another's is 404
    /// before a byte of a body is read).
    private func appForms(_ session: DeveloperSession, _ context: Context) async throws -> ConsoleAppPage.Forms {
        let app = try await services.ownership.app(try Self.appleItemId(context), for: session.actor)
        return appPage.forms(actor: session.actor, app: app, csrfToken: session.csrfToken) { error, status in
            try await appDetailPage(session: session, app: app, notice: nil, error: error, status: status)
        }
    }

    @Sendable func saveDetails(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        return try await appForms(session, context).saveText(form)
    }

    @Sendable func uploadMedia(_ request: Request, context: Context) async throws -> Response {
        try await appForms(try context.requireDeveloperSession(), context).saveMedia(request)
    }

    @Sendable func uploadPackage(_ request: Request, context: Context) async throws -> Response {
        try await appForms(try context.requireDeveloperSession(), context).uploadPackage(request)
    }

    @Sendable func withdrawVersion(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        return try await appForms(session, context).setWithdrawn(true, version: context.parameters.get("version"), form: form)
    }

    @Sendable func reinstateVersion(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        return try await appForms(session, context).setWithdrawn(false, version: context.parameters.get("version"), form: form)
    }
}
