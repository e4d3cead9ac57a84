import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// A catalog's store credentials in the operator's console (`/admin/catalog/<app>/credentials`):
/// the same page as the developer console's, through the same `StoreCredentialOperations` with
/// the staff member as actor. Support staff see the hints; only operators upload or remove.
extension AdminController {
    func addCredentialRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("catalog/:app/credentials", use: credentialsPage)
        routes.operators.post("catalog/:app/credentials", use: uploadCredential)
        routes.operators.post("catalog/:app/credentials/:store/:kind/remove", use: removeCredential)
    }

    static func credentialsPath(_ app: String) -> String { "/admin/catalog/\(pathComponent(app))/credentials" }

    var credentialOperations: StoreCredentialOperations { services.credentials }

    @Sendable func credentialsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let app = try await requireCatalog(context).catalog.app
        let notice = StoreCredentialPage.notice(request.uri.queryParameters["done"].map(String.init))
        return try await credentialsList(session: session, app: app, notice: notice, error: nil)
    }

    func credentialsList(session: ConsoleSession, app: String, notice: String?, error: String?,
                         status: HTTPResponse.Status = .ok) async throws -> Response {
        let credentials = try await credentialOperations.list(actor: Self.staffActor(session), app: app)
        let values = StoreCredentialPage.values(app: app, base: "/admin/catalog/\(Self.pathComponent(app))", credentials: credentials,
                                                canChange: session.isOperator, notice: notice, error: error)
        return try await render(.adminCredentials, session: session, title: "Store credentials of \(app)", page: values, status: status)
    }

    @Sendable func uploadCredential(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let app = try await requireCatalog(context).catalog.app
        let form = try await MultipartForm.read(request, csrfToken: session.csrfToken, folder: developerServices.workDir,
                                                maxFileBytes: StoreCredentialUpload.maxBytes)
        defer { form.cleanUp() }
        switch try await StoreCredentialPage.set(form, app: app, actor: Self.staffActor(session), operations: credentialOperations) {
        case .set: return WebPage.seeOther(Self.credentialsPath(app) + "?done=set")
        case .refused(let message): return try await credentialsList(session: session, app: app, notice: nil, error: message, status: .badRequest)
        }
    }

    @Sendable func removeCredential(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let app = try await requireCatalog(context).catalog.app
        let kind = try StoreCredentialPage.kind(context.parameters.get("store"), context.parameters.get("kind"))
        try await credentialOperations.remove(actor: Self.staffActor(session), app: app, kind: kind)
        return WebPage.seeOther(Self.credentialsPath(app) + "?done=removed")
    }
}
