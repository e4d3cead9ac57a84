import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// A catalog's store credentials in the developer console (`/developer/catalog/<app>/credentials`):
/// the page, an upload (`multipart/form-data`: `kind`, `file`) that seals and sets one, and
/// removing one, through `StoreCredentialOperations` as the session's actor. Another
/// organisation's catalog is 404 before a byte of an upload is read.
extension DeveloperConsoleController {
    func addCredentialRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("catalog/:app/credentials", use: credentialsPage)
        routes.members.post("catalog/:app/credentials", use: uploadCredential)
        routes.members.post("catalog/:app/credentials/:store/:kind/remove", use: removeCredential)
    }

    var credentialOperations: StoreCredentialOperations { StoreCredentialOperations(services: services, keysDir: keysDir) }

    @Sendable func credentialsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let app = context.parameters.get("app") ?? ""
        let notice = StoreCredentialPage.notice(request.uri.queryParameters["done"].map(String.init))
        return try await credentialsList(session: session, app: app, notice: notice, error: nil)
    }

    func credentialsList(session: DeveloperSession, app: String, notice: String?, error: String?,
                         status: HTTPResponse.Status = .ok) async throws -> Response {
        let credentials = try await credentialOperations.list(actor: session.actor, app: app)
        let values = StoreCredentialPage.values(app: app, base: Self.catalogPath(app), credentials: credentials,
                                                canChange: true, notice: notice, error: error)
        return try await render(.developerCredentials, session: session, title: "Store credentials of \(app)", page: values, status: status)
    }

    @Sendable func uploadCredential(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let app = try await services.ownership.catalog(context.parameters.get("app") ?? "", for: session.actor).catalog.app
        let form = try await MultipartForm.read(request, csrfToken: session.csrfToken, folder: services.workDir,
                                                maxFileBytes: StoreCredentialUpload.maxBytes)
        defer { form.cleanUp() }
        switch try await StoreCredentialPage.set(form, app: app, actor: session.actor, operations: credentialOperations) {
        case .set: return WebPage.seeOther(Self.catalogPath(app) + "/credentials?done=set")
        case .refused(let message): return try await credentialsList(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
    }

    @Sendable func removeCredential(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await memberForm(request, context: context)
        let app = context.parameters.get("app") ?? ""
        let kind = try StoreCredentialPage.kind(context.parameters.get("store"), context.parameters.get("kind"))
        try await credentialOperations.remove(actor: session.actor, app: app, kind: kind)
        return WebPage.seeOther(Self.catalogPath(app) + "/credentials?done=removed")
    }
}
