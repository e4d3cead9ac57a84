import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SoukApp
import SoukServer
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// Every log line a logger wrote, with its metadata, as text.
final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "souk.test.captured") { _ in Handler(logs: self) }
        logger.logLevel = level
        return logger
    }

    struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let text = "\(event.level) \(event.message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            logs.lines.withLock { $0.append(text) }
        }
    }
}

@Suite struct RequestLogTests {
    @Test func requestLogsNameThePathAndQueryKeysButNoValues() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let logs = CapturedLogs()
        let config = SoukConfig(dataDir: folder.path + "/data", port: 0, publicURL: "https://souk.test")
        let runtime = try await SoukRuntime.open(config, logger: logs.logger(), migrate: true)
        do {
            try await buildApplication(runtime).test(.router) { client in
                _ = try await client.execute(uri: OAuthTests.authorizeURI(hint: "a@b.c"), method: .get)
                _ = try await client.execute(uri: "/license/resolve?account=grace%40example.com", method: .get)
                _ = try await client.execute(uri: "/reset/spr_resetlinksecret", method: .get)
            }
        } catch {
            await runtime.close()
            throw error
        }
        await runtime.close()
        let requests = logs.all.filter { $0.contains("hb.request.path=") }
        #expect(requests.contains { $0.contains("hb.request.path=/oauth/authorize?login_hint=…&client_id=…") && $0.contains("hb.response.status=200") })
        #expect(requests.contains { $0.contains("hb.request.path=/license/resolve?account=…") })
        // A reset link's secret is its path.
        #expect(requests.contains { $0.contains("hb.request.path=/reset/…") && $0.contains("hb.response.status=404") })
        #expect(!logs.all.contains { $0.contains("resetlinksecret") })
        #expect(!logs.all.contains { $0.contains("a@b.c") || $0.contains("grace") || $0.contains("EE01F1C6") })
    }
}
