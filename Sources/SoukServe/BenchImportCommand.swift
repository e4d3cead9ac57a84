import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import SoukCLI
import SoukCore
import SoukStore
import Synchronization
import SoukServer

extension BenchCommand {
    /// Update checks answered while a large package is imported in the same process (as the App
    /// Store Connect worker does): latency before and during the import.
    struct ImportWhileServing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-while-serving",
            abstract: "Measure update-check latency in one process before and while it imports a large package (docs/benchmarks.md).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Size of the package's variant in MiB.") var mib: Int = 1024
        @Option(help: "Concurrent update-check loops.") var loops: Int = 4
        @Option(help: "Seconds of baseline before the import starts.") var baselineSeconds: Int = 5

        func run() async throws {
            guard (1...65_536).contains(mib), (1...64).contains(loops), (1...60).contains(baselineSeconds) else {
                throw ValidationError("--mib 1…65536, --loops 1…64, --baseline-seconds 1…60")
            }
            let port = FreePort.find(host: "127.0.0.1") ?? 18_080
            let runtime = try await settings.openRuntime(extraFlags: ["port": String(port)], quiet: true)
            let item: UInt64 = 6_999_000_001, version = UInt64(Date().timeIntervalSince1970)
            if try await !runtime.catalog.hasApp(appleItemId: item) {
                try await runtime.catalog.createApp(NewApp(appleItemId: item, bundleId: "org.example.big", name: "Big"))
            }
            if try await runtime.catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId).appleItemId == 0 {
                try await runtime.catalog.setMarketplace(appleItemId: 6_446_000_000, defaultKeyId: runtime.keys.installVerificationKeyId)
            }
            let folder = runtime.config.workDir + "/bench-import-\(version)"
            print("Writing a \(mib) MiB sample package …")
            _ = try SamplePackageMaker(appleItemId: item, appleVersionId: version, bundleId: "org.example.big", shortVersion: "1.0",
                                       bundleVersion: "1", minimumOS: OSVersion("17.0")!, variantSize: mib << 20).write(to: folder)
            defer { try? FileManager.default.removeItem(atPath: folder) }

            let app = try buildApplication(runtime)
            let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: runtime.logger)
            let body = #"{"apps": [{"appleItemId": "\#(item)", "appleVersionId": "0"}], "platform": "iOS", "osVersion": "17.4"}"#
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await Task.sleep(for: .seconds(1))
                let baseline = try await Self.measure(port: port, body: body, loops: loops) {
                    try await Task.sleep(for: .seconds(baselineSeconds))
                }
                let started = ContinuousClock.now
                let during = try await Self.measure(port: port, body: body, loops: loops) {
                    _ = try await runtime.importer.importPackage(at: folder)
                }
                print("baseline       \(baseline)")
                print("during import  \(during)   (import of \(mib) MiB took \(ContinuousClock.now - started))")
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            await runtime.close()
        }

        /// Update checks from `loops` concurrent loops while `work` runs; a summary line.
        static func measure(port: Int, body: String, loops: Int, during work: @escaping @Sendable () async throws -> Void) async throws -> String {
            let stop = StopFlag()
            let latencies = try await withThrowingTaskGroup(of: [Duration].self) { tasks in
                for _ in 0..<loops {
                    tasks.addTask {
                        var seen: [Duration] = []
                        while !stop.isSet {
                            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/marketplace-kit/v1/updates")
                            request.method = .POST
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(ByteBuffer(string: body))
                            let started = ContinuousClock.now
                            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            seen.append(ContinuousClock.now - started)
                        }
                        return seen
                    }
                }
                try await work()
                stop.set()
                return try await tasks.reduce(into: [Duration]()) { $0 += $1 }.sorted()
            }
            guard !latencies.isEmpty else { return "no requests answered" }
            func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
            let p = { (q: Double) in latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
            return "\(latencies.count) checks, p50 \(ms(p(0.5))), p99 \(ms(p(0.99))), max \(ms(latencies.last!))"
        }
    }
}

/// A flag set once, read from many tasks.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
