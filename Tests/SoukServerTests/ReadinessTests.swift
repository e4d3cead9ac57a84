import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// `GET /health/ready` through the real application, on both databases: 503 while the in-memory
/// indexes are being built (held at a gate), 200 once they are, liveness 200 throughout, correct
/// answers to requests that come during the build, and a failing catalog database that keeps the
/// process unready while the build retries.
@Suite struct ReadinessTests {
    /// Holds every warm-up before its first load until `open()`, and records which arrived.
    final class WarmUpGate: Sendable {
        private struct State {
            var open = false
            var arrived: Set<Readiness.Part> = []
            var waiting: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Mutex(State())

        var arrived: Set<Readiness.Part> { state.withLock { $0.arrived } }

        func wait(_ part: Readiness.Part) async {
            await withCheckedContinuation { continuation in
                let pass = state.withLock { state in
                    state.arrived.insert(part)
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if pass { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// How often `onReady` ran.
    final class Announcements: Sendable {
        let count = Mutex(0)
    }

    /// A Souk whose catalog is checked once a second (as in production), with `readiness` in it.
    static func withServer(_ backend: TestBackend, readiness: Readiness,
                           prepare: (SoukRuntime, ServerFixture.StorePaths) async throws -> Void,
                           _ test: @escaping @Sendable (any TestClientProtocol, SoukRuntime) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var config = SoukConfig(dataDir: folder.path + "/data", port: 0, publicURL: "https://souk.test", database: location)
        config.catalogRefreshMilliseconds = 1000
        config.databasePoolWaitSeconds = 120
        let runtime = try await SoukRuntime.open(config, logger: testLogger(), migrate: true)
        do {
            try await prepare(runtime, ServerFixture.StorePaths(folder: folder.path))
            try await buildApplication(runtime, readiness: readiness).test(.router) { client in try await test(client, runtime) }
        } catch {
            await runtime.close(); await drop(); folder.remove()
            throw error
        }
        await runtime.close(); await drop(); folder.remove()
    }

    /// Polls `condition` (recorded state) every 20 ms for up to a minute.
    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("not within a minute: \(what)")
        throw CancellationError()
    }

    static func status(_ client: any TestClientProtocol, _ uri: String, _ method: HTTPRequest.Method = .get) async throws -> HTTPResponse.Status {
        try await client.execute(uri: uri, method: method).status
    }

    @Test(arguments: TestBackend.available)
    func readyAnswers503UntilTheIndexesAreLoadedThen200(_ backend: TestBackend) async throws {
        let gate = WarmUpGate()
        let announced = Announcements()
        let readiness = Readiness(gate: { await gate.wait($0) }, onReady: { announced.count.withLock { $0 += 1 } })
        try await Self.withServer(backend, readiness: readiness, prepare: AppDataTests.prepare) { client, _ in
            // Both builds start with the process, before any request.
            try await Self.eventually("both warm-ups started") { gate.arrived == Set(Readiness.Part.allCases) }

            let notReady = try await client.execute(uri: "/health/ready", method: .get)
            #expect(notReady.status == .serviceUnavailable)
            #expect(notReady.headers[.retryAfter].flatMap { Int($0) }.map { (1...10).contains($0) } == true)
            #expect(notReady.headers[.contentType] == "application/problem+json")
            #expect(notReady.headers[.cacheControl] == "no-store")
            let problem = try AppDataTests.json(notReady)
            #expect(problem["status"] as? Int == 503)
            let detail = try #require(problem["detail"] as? String)
            #expect(detail.contains("catalog index") && detail.contains("storefront index"))
            let head = try await client.execute(uri: "/health/ready", method: .head)
            #expect(head.status == .serviceUnavailable && head.body.readableBytes == 0)
            // Liveness is not readiness.
            #expect(try await Self.status(client, "/health") == .ok)
            #expect(try await Self.status(client, "/health", .head) == .ok)

            // Requests that come meanwhile wait for what they need and are answered right.
            let updates = try AppDataTests.json(try await AppDataTests.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((updates["updates"] as? [[String: Any]])?.map { $0["appleVersionId"] as? String } == ["102"])
            #expect((updates["failures"] as? [Any])?.isEmpty == true)
            let restore = try AppDataTests.json(try await AppDataTests.post(client, "restore",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "102"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((restore["restores"] as? [Any])?.count == 1)
            let (listStatus, list) = try await StorefrontPagesTests.get(client, "/apps")
            #expect(listStatus == .ok && list.contains("/apps/1\"") && list.contains("/apps/4\""))
            let (searchStatus, found) = try await StorefrontPagesTests.get(client, "/search?q=sample")
            #expect(searchStatus == .ok && found.contains("/apps/1\""))
            #expect(try await Self.status(client, "/apps/1") == .ok)
            // Still not ready: the process's own build has not run.
            #expect(try await Self.status(client, "/health/ready") == .serviceUnavailable)
            #expect(announced.count.withLock { $0 } == 0)

            gate.open()
            try await Self.eventually("ready") { try await Self.status(client, "/health/ready") == .ok }
            let ready = try await client.execute(uri: "/health/ready", method: .get)
            #expect(String(buffer: ready.body) == #"{"status":"ready"}"#)
            #expect(ready.headers[.contentType] == "application/json" && ready.headers[.retryAfter] == nil)
            #expect(try await Self.status(client, "/health/ready", .head) == .ok)
            #expect(try await Self.status(client, "/health") == .ok)
            #expect(announced.count.withLock { $0 } == 1)
            #expect(readiness.status.pending.isEmpty && readiness.status.failures == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func aFailingCatalogDatabaseKeepsTheProcessUnreadyAndTheBuildRetries(_ backend: TestBackend) async throws {
        let readiness = Readiness()
        try await Self.withServer(backend, readiness: readiness, prepare: { runtime, paths in
            try await AppDataTests.prepare(runtime, paths)
            // Both indexes start by reading the catalog's revision: without its table every load fails.
            try await runtime.database.sql.raw("ALTER TABLE catalog_revision RENAME TO catalog_revision_away").run()
        }) { client, runtime in
            try await Self.eventually("three failed loads") { readiness.status.failures >= 3 }
            let response = try await client.execute(uri: "/health/ready", method: .get)
            #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] != nil)
            #expect(readiness.status.pending == Readiness.Part.allCases)
            #expect(try await Self.status(client, "/health") == .ok)

            try await runtime.database.sql.raw("ALTER TABLE catalog_revision_away RENAME TO catalog_revision").run()
            try await Self.eventually("ready after the catalog came back") { try await Self.status(client, "/health/ready") == .ok }
            #expect(readiness.status.pending.isEmpty)
            let updates = try AppDataTests.json(try await AppDataTests.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((updates["updates"] as? [[String: Any]])?.map { $0["appleVersionId"] as? String } == ["102"])
        }
    }
}
