import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// `/admin/clients`: the registered OAuth clients (docs/oauth.md, "Registered clients"). Every
/// console role sees them; registering and removing are for operators, and `ClientRegistry`
/// writes each to the audit log with the operator as actor.
extension AdminController {
    func addClientRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("clients", use: clientsPage)
        routes.operators.post("clients", use: addClient)
        routes.operators.post("clients/remove", use: removeClient)
    }

    var clientRegistry: ClientRegistry { services.clients }

    @Sendable func clientsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let notice = request.uri.queryParameters["removed"].map { "Removed \($0): its tokens no longer work." }
        return try await renderClients(session: session, notice: notice)
    }

    /// Registers a client (operators); the new `client_id` is shown once on the page (it is not a
    /// secret: it stays in the list too).
    @Sendable func addClient(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        guard let kind = form["kind"].flatMap(RegisteredClient.Kind.init(rawValue:)) else {
            return try await renderClients(session: session, error: "Choose native, web or tv.", form: form.values, status: .badRequest)
        }
        let uris = (form["redirect_uris"] ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        switch try await clientRegistry.add(name: form["name"] ?? "", kind: kind, redirectURIs: uris, app: form["app"], actor: session.actor) {
        case .failure(let problem):
            return try await renderClients(session: session, error: problem.description, form: form.values, status: .badRequest)
        case .success(let client):
            return try await renderClients(session: session, notice: "Registered \(client.name). Its client_id is \(client.clientId).")
        }
    }

    /// Removes a client (operators): its tokens are revoked at once.
    @Sendable func removeClient(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let clientId = form["client_id"] ?? ""
        guard try await clientRegistry.remove(clientId: clientId, actor: session.actor) else {
            return try await renderClients(session: session, error: "No registered client \(clientId).", status: .notFound)
        }
        var components = URLComponents()
        components.path = "/admin/clients"
        components.queryItems = [URLQueryItem(name: "removed", value: clientId)]
        return WebPage.seeOther(components.string ?? "/admin/clients")
    }

    private func renderClients(session: ConsoleSession, notice: String? = nil, error: String? = nil, form: [String: String] = [:],
                               status: HTTPResponse.Status = .ok) async throws -> Response {
        let format = WebPage.format
        let values = ClientsValues(
            clients: try await clientRegistry.list().map { entry in
                .init(clientId: entry.client.clientId, name: entry.client.name, kind: entry.client.kind.rawValue,
                      app: entry.client.app ?? "any", redirectURIs: entry.client.redirectURIs.joined(separator: " "),
                      created: format(entry.createdAt))
            },
            kinds: RegisteredClient.Kind.allCases.map { .init(kind: $0.rawValue, selected: form["kind"] == $0.rawValue) },
            formName: form["name"] ?? "", formRedirectURIs: form["redirect_uris"] ?? "", formApp: form["app"] ?? "",
            notice: notice, error: error)
        return try await render(.adminClients, session: session, title: "Clients", page: values, status: status)
    }
}
