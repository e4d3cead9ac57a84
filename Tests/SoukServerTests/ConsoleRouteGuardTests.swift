import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukServer
import SoukTestSupport
import Testing

/// Every route under `/admin` and `/developer` is in a console route group whose middleware
/// authenticates it: asked without a session it redirects to sign-in, and asked by a customer it
/// is refused (403). A handler registered outside the groups fails here: it either answers the
/// request (nothing refused it) or finds no session in its context (a 500).
@Suite struct ConsoleRouteGuardTests {
    /// Console routes that answer without a session (docs/web.md, "Console authentication"): none.
    static let openRoutes: Set<String> = []

    /// The router's console routes, as `(method, path with every parameter filled in)`.
    static func consoleRoutes(_ router: Router<SoukRequestContext>) -> [(method: HTTPRequest.Method, path: String, pattern: String)] {
        router.routes.compactMap { route in
            let pattern = route.path.description
            guard ["/admin", "/developer"].contains(where: { pattern == $0 || pattern.hasPrefix($0 + "/") }) else { return nil }
            let path = pattern.split(separator: "/").map { $0.hasPrefix("{") ? "1" : String($0) }.joined(separator: "/")
            return (route.method, "/" + path, pattern)
        }
    }

    @Test(arguments: TestBackend.available)
    func everyConsoleRouteRefusesRequestsWithoutAConsoleSession(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let routes = Self.consoleRoutes(buildRouter(runtime, metrics: SoukMetrics(), pages: try Pages()))
            // The dashboard, people, apps, catalogs, review, payouts, … and the developer console's pages.
            #expect(routes.count > 60)
            #expect(routes.contains { $0.pattern == "/admin" } && routes.contains { $0.pattern == "/developer" })
            let customer = try #require(try await WebAccountTests.webSignIn(client, email: "ada@example.com"))
            for route in routes where !Self.openRoutes.contains(route.pattern) {
                let anonymous = try await client.execute(uri: route.path, method: route.method, headers: OAuthTests.formHeaders)
                #expect(anonymous.status == .seeOther, "\(route.method) \(route.pattern) without a session")
                #expect(anonymous.headers[.location]?.hasPrefix("/signin?next=") == true, "\(route.method) \(route.pattern)")
                var headers = OAuthTests.formHeaders
                headers[.cookie] = customer
                let refused = try await client.execute(uri: route.path, method: route.method, headers: headers)
                #expect(refused.status == .forbidden, "\(route.method) \(route.pattern) as a customer")
            }
        }
    }
}
