import Foundation
import SoukStore

/// Where the scheduled exports go (docs/metrics.md, "Exports"): an S3-compatible bucket, reached
/// with the blob store's `s3…` connection settings, under `prefix`.
public struct ScheduledExportSettings: Sendable, Equatable {
    /// The object store and the exports' bucket (`exportsBucket`, else `s3Bucket`).
    public var store: S3ObjectStore.Settings
    /// The first part of every key, without slashes at its ends (default `exports`).
    public var prefix: String

    public init(store: S3ObjectStore.Settings, prefix: String = "exports") {
        self.store = store
        self.prefix = prefix
    }

    /// `<prefix>/<developer id>/<YYYY-MM-DD>/<app>/<kind>.csv`.
    public func key(developer: String, day: String, app: String, file: String) -> String {
        [prefix, developer, day, app, file].filter { !$0.isEmpty }.joined(separator: "/")
    }
}
