import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukTestSupport
import Testing

/// An undeclared method on a path Souk serves is a `405` problem with `Allow`, `OPTIONS` a `204`
/// with `Allow`; a path nothing serves, or a handler's own not-found, stays a `404`.
@Suite struct MethodNotAllowedTests {
    @Test(arguments: TestBackend.available)
    func undeclaredMethodsAre405WithAllow(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend) { client in
            let cases: [(String, HTTPRequest.Method, String)] = [
                ("/oauth/token", .get, "POST"),
                ("/oauth/token", .delete, "POST"),
                ("/marketplace-kit/v1/license", .put, "POST"),
                ("/health", .post, "GET, HEAD"),
                // A path with parameters: the route exists whatever the values are.
                ("/packages/6500000001/9000000001/manifest.json", .post, "GET, HEAD"),
            ]
            for (uri, method, allow) in cases {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.headers[.allow] == allow, "\(method) \(uri)")
                #expect(response.headers[.contentType] == "application/problem+json")
                #expect(String(buffer: response.body).contains("answers \(allow), not \(method.rawValue)"))
            }
            let options = try await client.execute(uri: "/oauth/token", method: .options)
            #expect(options.status == .noContent && options.headers[.allow] == "POST, OPTIONS")

            // Nothing serves this path: 404. A route that serves the method but finds nothing: its own 404.
            #expect(try await client.execute(uri: "/no/such/path", method: .post).status == .notFound)
            let missing = try await client.execute(uri: "/packages/6500000001/9000000001/manifest.json", method: .get)
            #expect(missing.status == .notFound && missing.headers[.allow] == nil)
        }
    }
}
