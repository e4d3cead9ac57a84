import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukServer
import SoukTestSupport
import Testing

@Suite struct OperationsTests {
    @Test(arguments: TestBackend.available)
    func healthChecksTheDatabase(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"status":"ok","database":"ok"}"#)
                #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
            }
        }
    }

    @Test func theOpenAPIDocumentIsServedFromTheBinary() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let response = try await client.execute(uri: "/openapi.json", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: Any])
            for path in ["/.well-known/marketplace-kit", "/oauth/token", "/marketplace-kit/v1/license", "/marketplace-kit/v1/updates",
                         "/api/v1/checkout", "/health"] {
                #expect(paths[path] != nil, "\(path) is documented")
            }
            let etag = try #require(response.headers[.eTag])
            #expect(try await client.execute(uri: "/openapi.json", method: .get, headers: [.ifNoneMatch: etag]).status == .notModified)
            // The same bytes as the file in the repository (scripts/openapi-check.sh checks the file against real answers).
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/SoukServer/Resources/openapi.json")
            #expect(Data(buffer: response.body) == (try Data(contentsOf: file.standardizedFileURL)))
        }
    }

    @Test func metricsCountRequestsByRouteAndPackageBytes() async throws {
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in
            _ = try await runtime.importSample(variantSize: 5_000, in: paths.folder)
        }) { client in
            _ = try await client.execute(uri: "/packages/6500000001/9000000001/signature", method: .get)
            _ = try await client.execute(uri: "/health", method: .get)
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(text.contains(#"souk_http_requests_total{method="GET",route="/health",status="200"} 1"#))
            #expect(text.contains(#"route="/packages/{appleItemId}/{appleVersionId}/**",status="200"} 1"#))
            #expect(text.contains("souk_http_request_duration_seconds_bucket"))
            let served = text.split(separator: "\n").first { $0.hasPrefix("souk_package_bytes_served_total ") }
            #expect(served.map { Int($0.split(separator: " ")[1]) ?? 0 } ?? 0 > 0)
        }
    }

    @Test func aMetricsTokenKeepsMetricsFromStrangers() async throws {
        let token = "metrics-scraper-0123456789"
        try await ServerFixture.with(.sqlite, configure: { $0.metricsToken = token }) { client in
            let anonymous = try await client.execute(uri: "/metrics", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate] == #"Bearer realm="metrics""#)
            #expect(anonymous.body.readableBytes == 0)
            for wrong in ["Bearer metrics-scraper-012345678", "Bearer \(token)x", "Basic \(token)", token] {
                #expect(try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: wrong]).status == .unauthorized)
            }
            let scraped = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(scraped.status == .ok)
            #expect(String(buffer: scraped.body).contains("souk_http_requests_total"))
            // /health stays open for load balancers.
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }

    @Test func unknownRoutesAnswerProblemJSONWithoutInternals() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let response = try await client.execute(uri: "/no/such/thing", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(object["status"] as? Int == 404)
            #expect(object["title"] as? String == "Not Found")
            #expect(object["instance"] as? String == "/no/such/thing")
        }
    }
}
