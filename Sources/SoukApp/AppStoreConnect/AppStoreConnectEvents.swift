import Foundation
import Logging
import ServiceLifecycle
import SoukCore
import SoukIntegrations
import SoukStore

/// Carries out App Store Connect notifications from the `asc_events` queue: ingests new package
/// versions, withdraws versions and apps. Every process may run it; claims keep an event with one
/// worker, failures are retried with back-off and then left `failed` for the operator.
public struct AppStoreConnectEventProcessor: Sendable {
    package let client: (any AppStoreConnectAPI)?
    package let store: AppStoreConnectEventStore
    package let catalog: CatalogStore
    /// Refreshed after a change, so that this process serves it at once.
    package let catalogIndex: CatalogIndex
    package let importer: PackageImporter
    package let licenses: LicenseStore
    /// Where a package is downloaded to before it is imported.
    package let workDir: String
    package let logger: Logger

    public init(runtime: SoukRuntime, client: (any AppStoreConnectAPI)?) {
        self.client = client
        store = AppStoreConnectEventStore(database: runtime.database)
        catalog = runtime.catalog
        catalogIndex = runtime.catalogIndex
        importer = runtime.importer
        licenses = LicenseStore(database: runtime.database)
        workDir = runtime.config.workDir
        logger = runtime.logger
    }

    /// Processes every due event; returns how many were handled (done or failed).
    @discardableResult
    public func processDue() async -> Int {
        var count = 0
        while !Task.isCancelled {
            let record: AppStoreConnectEventRecord
            do {
                guard let claimed = try await store.claimNext() else { return count }
                record = claimed
            } catch {
                logger.error("cannot read the App Store Connect event queue", metadata: ["error": "\(String(reflecting: error))"])
                return count
            }
            count += 1
            let metadata: Logger.Metadata = ["event": "\(record.eventId)", "type": "\(record.type)", "attempt": "\(record.attempts)"]
            do {
                try await process(record)
                try await store.markDone(record.id)
                logger.info("App Store Connect event processed", metadata: metadata)
            } catch {
                let message = String(describing: error)
                logger.error("App Store Connect event failed", metadata: metadata.merging(["error": "\(message)"]) { $1 })
                try? await store.markFailed(record.id, attempts: record.attempts, error: message)
            }
        }
        return count
    }

    package func process(_ record: AppStoreConnectEventRecord) async throws {
        let event = try AppStoreConnectEvent.parse(Array(record.payload.utf8))
        switch event.kind {
        case .packageVersionAvailable(let appId, let packageId, let packageVersionId):
            try await ingest(appId: appId, packageId: packageId, packageVersionId: packageVersionId)
        case .versionsUnavailable(_, let packageIds):
            let withdrawn = try await store.withdraw(packageIds: packageIds)
            logger.notice("versions withdrawn by App Store Connect", metadata: ["versions": "\(withdrawn.map { "\($0.0)/\($0.1)" })"])
        case .appUnavailable(let appId):
            if try await catalog.hasApp(appleItemId: appId) {
                try await catalog.setAvailability(appleItemId: appId, to: .removedByDeveloper, reason: "withdrawn in App Store Connect")
            }
        case .other:
            break
        }
        try await catalogIndex.refresh()
    }

    package func ingest(appId: UInt64, packageId: String, packageVersionId: String) async throws {
        guard let client else {
            throw AppStoreConnectError(description: "App Store Connect API credentials are not set (SOUK_ASC_KEY_ID, SOUK_ASC_ISSUER_ID, SOUK_ASC_PRIVATE_KEY)")
        }
        let version = try await client.packageVersion(id: packageVersionId)
        if version.state == "REPLACED" {
            logger.notice("package version replaced before it was ingested; skipped", metadata: ["packageVersion": "\(packageVersionId)"])
            return
        }
        if try await !catalog.hasApp(appleItemId: appId) {
            let app = try await client.app(id: appId)
            _ = try await catalog.createApp(NewApp(appleItemId: appId, bundleId: app.bundleId, name: app.name))
        }
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let zip = WorkOwner.name(prefix: "asc-", in: workDir) + ".zip"
        defer { try? FileManager.default.removeItem(atPath: zip) }
        try await client.download(version.url, to: zip)
        let appleVersionId: UInt64
        switch try await importer.importPackage(at: zip) {
        case .imported(let item, let versionId, _, _), .alreadyImported(let item, let versionId):
            guard item == appId else {
                throw AppStoreConnectError(description: "the package is for app \(item), the notification for app \(appId)")
            }
            appleVersionId = versionId
        }
        try await store.recordPackage(packageId: packageId, packageVersionId: packageVersionId, appleItemId: appId, appleVersionId: appleVersionId)
        // The key blobs licensing hands to Apple's SDK, by variant. Souk takes the variant resource's
        // id to be the manifest's `assetPublicId`; `souk packages set-key-blob` corrects one by hand.
                for variant in try await client.packageVariants(versionId: packageVersionId) {
            guard let blob = variant.keyBlob else { continue }
            try await licenses.setKeyBlob(assetPublicId: variant.id, appleItemId: appId, appleVersionId: appleVersionId, keyBlob: blob)
        }
    }
}

/// Runs the processor in a server: when the webhook rings, and every `interval` for retries and
/// events a crashed process left behind.
public final class AppStoreConnectEventWorker: Service, Sendable {
    package let processor: AppStoreConnectEventProcessor
    package let interval: Duration
    private let bell: AsyncStream<Void>
    private let ringer: AsyncStream<Void>.Continuation

    public init(processor: AppStoreConnectEventProcessor, interval: Duration = .seconds(30)) {
        self.processor = processor
        self.interval = interval
        (bell, ringer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the worker to look at the queue now.
    public func ring() {
        ringer.yield()
    }

    public func run() async throws {
        let ticker = Task { [ringer, interval] in
            while !Task.isCancelled {
                ringer.yield()
                try? await Task.sleep(for: interval)
            }
        }
        defer { ticker.cancel() }
        await cancelWhenGracefulShutdown {
            for await _ in self.bell {
                await self.processor.processDue()
            }
        }
    }
}
