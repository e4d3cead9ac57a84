import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Prometheus
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The scheduled exports (docs/metrics.md, "Exports"): each organisation's apps, each day once, to
/// a bucket, under the maintenance lease; a failure tried again at the next run and counted. On
/// SQLite and PostgreSQL, against a fake S3-compatible store.
@Suite struct ScheduledExportTests {
    typealias World = DeveloperAPIWorld

    static func service(_ runtime: SoukRuntime, endpoint: String, clock: TestClock, registry: PrometheusCollectorRegistry,
                        prefix: String = "exports") -> ScheduledExportService {
        let settings = ScheduledExportSettings(store: .init(endpoint: endpoint, bucket: "souk-exports", region: "us-east-1", accessKeyId: "AKID",
                                                            secretAccessKey: "secret"), prefix: prefix)
        return ScheduledExportService(settings: settings, exports: RawExports(runtime: runtime, now: { clock.now }),
                                      lease: MaintenanceLease(database: runtime.database), workDir: runtime.config.workDir,
                                      metrics: ScheduledExportMetrics(registry: registry), logger: testLogger(), now: { clock.now })
    }

    static func counters(_ registry: PrometheusCollectorRegistry) -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test(arguments: TestBackend.available)
    func eachOrganisationsAppsAreWrittenOncePerDayAndAFailureIsTriedAgain(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, world in
            let day = MetricDay("2026-11-10")!
            _ = try await RawExportTests.history(runtime, world, count: 4)
            let clock = TestClock(day.adding(days: 1).start.addingTimeInterval(3600))
            // The metrics files convert the day's euros and yen (ScheduledMetricsExportTests: without a rate the day waits).
            try await ScheduledMetricsExportTests.setRates(runtime, at: clock.now)
            let bucket = FakeObjectStore()
            try await bucket.run { endpoint in
                let registry = PrometheusCollectorRegistry()
                let first = try #require(try await Self.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                // Acme's reader (catalog and app), Acme's notes (an app only), Beta's reader.
                #expect(first.written.map { "\($0.developerID) \($0.app) \($0.day)" }.sorted()
                        == ["acme org.acme.notes 2026-11-10", "acme org.acme.reader 2026-11-10", "beta org.beta.reader 2026-11-10"])
                #expect(first.failed.isEmpty)
                let objects = bucket.objects
                #expect(objects.keys.sorted() == ["acme/org.acme.notes", "acme/org.acme.reader", "beta/org.beta.reader"].flatMap { path -> [String] in
                    let parts = path.split(separator: "/")
                    // An in-app catalog's day has its metrics and cohorts too; Acme's notes is an app without one.
                    let files = parts[1] == World.acmeNotesApp ? ["events.csv", "purchases.csv"]
                        : ["cohorts.jsonl", "events.csv", "metrics.jsonl", "purchases.csv"]
                    return files.map { "souk-exports/exports/\(parts[0])/2026-11-10/\(parts[1])/\($0)" }
                }.sorted())
                let purchases = try #require(objects["souk-exports/exports/acme/2026-11-10/org.acme.reader/purchases.csv"])
                #expect(purchases.hasPrefix(RawExportLines.header(.purchases, format: .csv)!) && purchases.contains("apple_store"))
                #expect(purchases.components(separatedBy: "\r\n").count == 1 + 4 + 2 + 1 && !purchases.contains("@example.com"))
                #expect(first.written.first { $0.app == World.acmeApp }?.purchases == 6)

                // Run again (another process, or after a restart): nothing is written twice.
                let uploads = bucket.faults.requests.count
                let again = try #require(try await Self.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                #expect(again.written.isEmpty && again.failed.isEmpty && bucket.faults.requests.count == uploads)

                // Two days later, with the store failing: both days are due, recorded, failed and counted.
                clock.advance(2 * 86_400)
                bucket.faults.down()
                let failing = try #require(try await Self.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                #expect(failing.written.isEmpty && failing.failed.count == 6)
                #expect(failing.failed.allSatisfy { $0.lastError?.contains("503") == true })
                #expect(Self.counters(registry).contains("souk_scheduled_exports_total{outcome=\"failed\"} 6"))
                let ledger = ScheduledExportLedger(database: runtime.database)
                #expect(try await ledger.due(through: day.adding(days: 2)).map(\.attempts) == Array(repeating: 1, count: 6))

                // The next run, the store back: the missed days are written, none skipped, none again;
                // Acme's notes app, given back to the marketplace meanwhile, is not Acme's to export.
                bucket.faults.recover()
                _ = try await DeveloperDirectory(database: runtime.database).setAppDeveloper(appleItemId: World.acmeNotesItem, developer: nil)
                let recovered = try #require(try await Self.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce())
                #expect(recovered.written.count == 4 && recovered.failed.isEmpty && !recovered.written.contains { $0.app == World.acmeNotesApp })
                #expect(Set(recovered.written.map(\.day.description)) == ["2026-11-11", "2026-11-12"])
                #expect(try await ledger.due(through: day.adding(days: 2)).isEmpty)
                #expect(try await ledger.list().count == 7)
                #expect(Self.counters(registry).contains("souk_scheduled_exports_total{outcome=\"written\"} 7"))
                let refund = try #require(bucket.objects["souk-exports/exports/acme/2026-11-11/org.acme.reader/events.csv"])
                #expect(refund.contains(",refund,checkout,Production,marketplace,"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func onlyTheLeaseHolderRuns(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let clock = TestClock(Date())
            let bucket = FakeObjectStore()
            try await bucket.run { endpoint in
                let registry = PrometheusCollectorRegistry()
                let lease = MaintenanceLease(database: runtime.database)
                let claimed = try await lease.claim(ScheduledExportService.job, holder: "another process", for: 600)
                let report = try await Self.service(runtime, endpoint: endpoint, clock: clock, registry: registry).runOnce()
                #expect(claimed && report == nil)
                #expect(bucket.objects.isEmpty)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aServerWritesTheExportsAndCountsThemOnItsMetrics(backend: TestBackend) async throws {
        let bucket = FakeObjectStore()
        try await bucket.run { endpoint in
            try await World.with(backend, configure: { config in
                config.scheduledExports = ScheduledExportSettings(store: .init(endpoint: endpoint, bucket: "souk-exports", region: "us-east-1",
                                                                               accessKeyId: "AKID", secretAccessKey: "secret"))
            }) { client, runtime, _ in
                let ledger = ScheduledExportLedger(database: runtime.database)
                try await eventually("the server's first run wrote yesterday's exports") {
                    let days = try await ledger.list()
                    return days.count == 3 && days.allSatisfy { $0.writtenAt != nil }
                }
                // The worker counts a day just after it records it written: wait for the count too.
                try await eventually("the server counted the three days on its metrics") {
                    let metrics = try await client.execute(uri: "/metrics", method: .get)
                    return String(buffer: metrics.body).contains("souk_scheduled_exports_total{outcome=\"written\"} 3")
                }
                #expect(bucket.objects.count == 10)
            }
        }
    }

    @Test func theSettingsNameTheBucketAndPrefix() async throws {
        let s3 = ["SOUK_S3_ENDPOINT": "http://127.0.0.1:9000", "SOUK_S3_BUCKET": "souk-blobs", "SOUK_S3_ACCESS_KEY_ID": "AKID",
                  "SOUK_S3_SECRET_ACCESS_KEY": "secret"]
        #expect(try await SoukConfig.load(flags: [:], environment: s3).scheduledExports == nil)
        let on = try #require(try await SoukConfig.load(flags: [:], environment: s3.merging(["SOUK_SCHEDULED_EXPORTS": "true"]) { $1 })
            .scheduledExports)
        #expect(on.store.bucket == "souk-blobs" && on.prefix == "exports" && on.store.endpoint == "http://127.0.0.1:9000")
        let own = try #require(try await SoukConfig.load(flags: [:], environment: s3.merging(
            ["SOUK_SCHEDULED_EXPORTS": "true", "SOUK_EXPORTS_BUCKET": "acme-exports", "SOUK_EXPORTS_PREFIX": "/souk/daily/"]) { $1 }).scheduledExports)
        #expect(own.store.bucket == "acme-exports" && own.prefix == "souk/daily")
        #expect(own.key(developer: "acme", day: "2026-11-10", app: "org.acme.reader", file: "events.csv")
                == "souk/daily/acme/2026-11-10/org.acme.reader/events.csv")
        for bad in [["SOUK_SCHEDULED_EXPORTS": "yes"], ["SOUK_SCHEDULED_EXPORTS": "true", "SOUK_S3_ENDPOINT": ""],
                    ["SOUK_SCHEDULED_EXPORTS": "true", "SOUK_EXPORTS_BUCKET": "Bad_Bucket"],
                    ["SOUK_SCHEDULED_EXPORTS": "true", "SOUK_EXPORTS_PREFIX": "../up"]] {
            await #expect(throws: ConfigError.self, "\(bad)") {
                _ = try await SoukConfig.load(flags: [:], environment: s3.merging(bad) { $1 })
            }
        }
        var missing = s3
        missing["SOUK_S3_SECRET_ACCESS_KEY"] = nil
        missing["SOUK_SCHEDULED_EXPORTS"] = "true"
        await #expect(throws: ConfigError.self) { _ = try await SoukConfig.load(flags: [:], environment: missing) }
    }
}
