import FluentKit
import Foundation
import SQLKit
import SoukCore

/// Why a client cannot be registered: shown to the operator as is.
public struct ClientRegistrationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The registered OAuth clients (`oauth_clients`): added and removed by operators (the console and
/// `souk clients`), each change written to the audit log with the actor it was given.
public struct ClientRegistry: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// A registered client with when it was registered.
    public struct Entry: Sendable, Equatable {
        public var client: RegisteredClient
        public var createdAt: Date
    }

    /// Registers a client with a fresh `client_id`; `redirectURIs` must suit `kind`
    /// (`RedirectURIRule`), `app` must look like a bundle id or package name.
    public func add(name rawName: String, kind: RegisteredClient.Kind, redirectURIs: [String], app: String?,
                    actor: String) async throws -> Result<RegisteredClient, ClientRegistrationProblem> {
        let name = rawName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100 else { return .failure(.init("The name must be 1 to 100 characters.")) }
        let uris = redirectURIs.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if kind == .tv, !uris.isEmpty {
            return .failure(.init("A tv client has no redirect URI: it signs in with the device authorization grant."))
        }
        if kind != .tv, uris.isEmpty { return .failure(.init("A \(kind.rawValue) client needs at least one redirect URI.")) }
        guard uris.count <= 20 else { return .failure(.init("At most 20 redirect URIs.")) }
        for uri in uris {
            if let problem = RedirectURIRule.problem(uri, kind: kind) { return .failure(.init(problem)) }
        }
        let app = app.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        if let app, !Self.isAppIdentifier(app) {
            return .failure(.init("--app must be an app's bundle id or package name (letters, digits, '.', '-', '_'; at most 255)."))
        }
        let client = RegisteredClient(clientId: OpaqueToken.generate(.clientId), name: name, kind: kind, redirectURIs: uris, app: app)
        let model = OAuthClientModel()
        model.clientId = client.clientId
        model.name = name
        model.kind = kind.rawValue
        model.redirectURIs = String(decoding: try JSONEncoder().encode(uris), as: UTF8.self)
        model.app = app
        model.createdAt = now()
        try await model.create(on: database.db)
        try await AuditLog(database: database, now: now).record(actor: actor, action: .clientAdd, target: "client:\(client.clientId)",
                                                                after: Self.auditFields(client))
        return .success(client)
    }

    /// Every registered client, oldest first.
    public func list() async throws -> [Entry] {
        try await OAuthClientModel.query(on: database.db).sort(\.$createdAt).sort(\.$clientId).all().compactMap(Self.entry)
    }

    /// The registered client with this `client_id`; nil for any other (MarketplaceKit's devices
    /// make their `client_id`s up).
    public func find(clientId: String) async throws -> RegisteredClient? {
        try await OAuthClientModel.query(on: database.db).filter(\.$clientId == clientId).first().flatMap(Self.entry)?.client
    }

    /// Removes a client: its tokens are revoked and its pending TV sign-ins forgotten. False when
    /// no such client was registered.
    public func remove(clientId: String, actor: String) async throws -> Bool {
        guard let existing = try await find(clientId: clientId) else { return false }
        try await database.transaction { db in
            try await OAuthClientModel.query(on: db).filter(\.$clientId == clientId).delete()
            try await DeviceAuthorizationModel.query(on: db).filter(\.$clientId == clientId).delete()
            try await OAuthTokenModel.query(on: db).filter(\.$clientId == clientId).filter(\.$revokedAt == nil)
                .set(\.$revokedAt, to: now()).update()
        }
        try await AuditLog(database: database, now: now).record(actor: actor, action: .clientRemove, target: "client:\(clientId)",
                                                                before: Self.auditFields(existing))
        return true
    }

    static func isAppIdentifier(_ app: String) -> Bool {
        app.count <= 255 && app.unicodeScalars.allSatisfy { scalar in
            (scalar.value < 0x80) && (CharacterSet.alphanumerics.contains(scalar) || ".-_".unicodeScalars.contains(scalar))
        }
    }

    static func auditFields(_ client: RegisteredClient) -> [String: String] {
        var fields = ["name": client.name, "kind": client.kind.rawValue, "redirect_uris": client.redirectURIs.joined(separator: " ")]
        fields["app"] = client.app
        return fields
    }

    static func entry(_ model: OAuthClientModel) -> Entry? {
        guard let kind = RegisteredClient.Kind(rawValue: model.kind) else { return nil }
        let uris = (try? JSONDecoder().decode([String].self, from: Data(model.redirectURIs.utf8))) ?? []
        return Entry(client: RegisteredClient(clientId: model.clientId, name: model.name, kind: kind, redirectURIs: uris, app: model.app),
                     createdAt: model.createdAt)
    }
}
