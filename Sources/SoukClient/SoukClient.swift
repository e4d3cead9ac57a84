import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// Souk's API for an app, on behalf of the person signed in to it (docs/clients.md).
///
/// The calls an app makes most (its products, reporting a purchase, entitlements, restore, the
/// account token, device sign-in) as typed methods over the client generated from Souk's OpenAPI
/// document (`Generated/`, written by `scripts/generate-client.sh`). Refusals and outages are
/// thrown as ``SoukClientError``.
public struct SoukClient: Sendable {
    /// Where Souk serves, e.g. `https://souk.example`.
    public let serverURL: URL
    let transport: any ClientTransport
    let generated: Client
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameters:
    ///   - serverURL: Souk's public URL.
    ///   - accessToken: the person's access token (`sat_…`), asked before every request, so a
    ///     refreshed token is used at once; `nil` sends no `Authorization`.
    ///   - transport: how requests travel; `URLSessionTransport()` by default (Apple platforms and
    ///     Linux). On a server, `AsyncHTTPClientTransport` from swift-openapi-async-http-client fits.
    ///   - sleep: how device sign-in waits between polls (tests pass one that returns at once).
    public init(
        serverURL: URL,
        accessToken: @escaping @Sendable () async throws -> String? = { nil },
        transport: any ClientTransport = URLSessionTransport(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.serverURL = serverURL
        self.transport = transport
        self.sleep = sleep
        self.generated = Client(serverURL: serverURL, transport: transport,
                                middlewares: [BearerTokenMiddleware(accessToken: accessToken)])
    }

    /// A client that always sends the same access token.
    public init(serverURL: URL, accessToken: String, transport: any ClientTransport = URLSessionTransport()) {
        self.init(serverURL: serverURL, accessToken: { accessToken }, transport: transport)
    }
}
