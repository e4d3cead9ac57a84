import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk clients add|list|remove`, run in-process as `souk` parses them, on both databases.
@Suite struct ClientsCommandTests {
    @Test(arguments: TestBackend.available)
    func addListAndRemoveAreAudited(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            try await SoukCommand.run(["clients", "add", "--name", "Reader TV", "--kind", "tv", "--app", "com.example.reader"] + settings)
            try await SoukCommand.run(["clients", "add", "--name", "Reader", "--kind", "native",
                                       "--redirect-uri", "com.example.reader:/cb", "--redirect-uri", "http://127.0.0.1/cb"] + settings)
            // Refused: a web client with a custom scheme, a tv client with a redirect URI, a native one without any, an unknown kind.
            for bad in [["--kind", "web", "--redirect-uri", "com.example.reader:/cb"], ["--kind", "tv", "--redirect-uri", "https://a.example/cb"],
                        ["--kind", "native"], ["--kind", "native", "--redirect-uri", "http://localhost/cb"],
                        ["--kind", "web", "--redirect-uri", "https://a.example/cb#frag"]] {
                await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["clients", "add", "--name", "Bad"] + bad + settings) }
            }
            await #expect(throws: (any Error).self) { try await SoukCommand.run(["clients", "add", "--name", "X", "--kind", "phone"] + settings) }
            try await SoukCommand.run(["clients", "list"] + settings)
            let clients = try await WebhooksCommandTests.withRuntime(config) { try await ClientRegistry(database: $0.database).list() }
            #expect(clients.map(\.client.name) == ["Reader TV", "Reader"])
            let tv = try #require(clients.first?.client)
            #expect(tv.kind == .tv && tv.app == "com.example.reader" && tv.redirectURIs.isEmpty && tv.clientId.hasPrefix("sci_"))
            #expect(clients.last?.client.redirectURIs == ["com.example.reader:/cb", "http://127.0.0.1/cb"])

            try await SoukCommand.run(["clients", "remove", tv.clientId] + settings)
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["clients", "remove", tv.clientId] + settings) }
            let (left, audit) = try await WebhooksCommandTests.withRuntime(config) { runtime in
                (try await ClientRegistry(database: runtime.database).list(),
                 try await AuditLog(database: runtime.database).list(target: "client:\(tv.clientId)"))
            }
            #expect(left.count == 1)
            #expect(audit.map(\.action) == ["client.remove", "client.add"])
            #expect(audit.allSatisfy { $0.actor.hasPrefix("cli:") })
        }
    }
}
