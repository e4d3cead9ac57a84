import Crypto
import Foundation

/// Hosted content of an in-app product, downloaded the way StoreKit's download states describe it
/// (StoreKit's “In-App Purchasing” guide): waiting, active (with progress and time remaining), paused (an interruption, resumed
/// with `Range` by the next run), finished (the zip's SHA-256 checked against the manifest),
/// failed, cancelled. Where a download stands is kept in `<state>/content/<product>-<version>.json`
/// beside the partial file, so a run after a crash or a Ctrl-C goes on from there.
public struct ContentDownload: Sendable {
    public enum State: String, Codable, Sendable {
        case waiting, active, paused, finished, failed, cancelled
    }

    /// What the state file holds.
    public struct Record: Codable, Sendable, Equatable {
        public var state: State
        public var url: String
        public var size: Int64
        public var sha256: String
        public var received: Int64
        public var detail: String?
    }

    let http: DeviceHTTP
    let folder: String
    let say: @Sendable (String) -> Void

    public init(http: DeviceHTTP, stateFolder: String, say: @escaping @Sendable (String) -> Void) {
        self.http = http
        self.folder = stateFolder + "/content"
        self.say = say
    }

    /// The manifest URL of a content URL (`…/content/<productId>` or `…/content/<productId>/<version>`)
    /// and the version asked for.
    static func manifest(of url: String) throws -> (manifest: String, productId: String, version: String?) {
        guard let range = url.range(of: "/content/") else {
            throw DeviceError(.protocolViolation, "\(url) is not a hosted content URL (…/commerce/<app>/content/<productId>[/<version>])")
        }
        let parts = url[range.upperBound...].split(separator: "/").map(String.init)
        guard (1...2).contains(parts.count), parts.last != "manifest.json" else {
            throw DeviceError(.protocolViolation, "\(url) is not a hosted content URL (…/commerce/<app>/content/<productId>[/<version>])")
        }
        return (String(url[..<range.upperBound]) + parts[0] + "/manifest.json", parts[0], parts.count == 2 ? parts[1] : nil)
    }

    /// Downloads (or resumes, or finishes) the content at `url` into `out`, returning the zip's path.
    /// `stopAfter`: pause once that many bytes are on disk (what an interruption does).
    public func run(_ url: String, token: String, out: String, stopAfter: Int64? = nil) async throws -> (record: Record, path: String?) {
        let (manifestURL, productId, version) = try Self.manifest(of: url)
        let auth = [("Authorization", "Bearer \(token)")]
        let answer = try await http.send(.GET, manifestURL, headers: auth)
        switch answer.status {
        case 200: break
        case 401, 403: throw DeviceError(.oauthTokenError, "the account is not entitled to \(productId)'s content (\(answer.status))")
        default: throw DeviceError(.networkError, "GET \(manifestURL) answered \(answer.status)")
        }
        let manifest = try http.json(answer, "the content manifest")
        let versions = manifest["versions"] as? [[String: Any]] ?? []
        guard let entry = version.map({ wanted in versions.first { $0["contentVersion"] as? String == wanted } }) ?? versions.first,
              let exact = entry["url"] as? String, let sha256 = entry["sha256"] as? String, let size = (entry["size"] as? NSNumber)?.int64Value,
              let contentVersion = entry["contentVersion"] as? String else {
            throw DeviceError(.protocolViolation, "the manifest lists no version \(version ?? "") of \(productId)")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let name = "\(productId)-\(contentVersion)"
        let part = "\(folder)/\(name).part", statePath = "\(folder)/\(name).json"
        var record = (try? JSONDecoder().decode(Record.self, from: Data(contentsOf: URL(fileURLWithPath: statePath))))
            ?? Record(state: .waiting, url: exact, size: size, sha256: sha256, received: 0)
        if record.sha256 != sha256 { record = Record(state: .waiting, url: exact, size: size, sha256: sha256, received: 0) }
        func save(_ state: State, detail: String? = nil) throws {
            record.state = state
            record.detail = detail
            try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: statePath))
            say("\(name): \(state.rawValue)\(detail.map { " — \($0)" } ?? "")")
        }
        try save(record.received > 0 ? .paused : .waiting, detail: record.received > 0 ? "\(record.received) of \(size) bytes on disk" : nil)
        let started = Date()
        var fromByte: Int64 = 0
        var lastDraw = Date.distantPast
        do {
            try await http.download(exact, to: part, expectedSize: size, headers: auth, startsAt: { offset in
                fromByte = offset
                record.received = offset
                try save(.active, detail: offset > 0 ? "resuming at byte \(offset)" : nil)
            }, chunk: { _ in
                if let stopAfter, let onDisk = try? FileManager.default.attributesOfItem(atPath: part)[.size] as? NSNumber,
                   onDisk.int64Value >= stopAfter, onDisk.int64Value < size {
                    throw Interrupted()
                }
            }, progress: { received, total in
                record.received = received
                let now = Date()
                guard now.timeIntervalSince(lastDraw) > 0.2 || received == total else { return }
                lastDraw = now
                say(Self.progress(received: received, from: fromByte, total: total ?? size, elapsed: now.timeIntervalSince(started)))
            })
        } catch {
            record.received = (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? NSNumber)?.int64Value ?? record.received
            try save(.paused, detail: "\(record.received) of \(size) bytes on disk; run again to resume")
            return (record, nil)
        }
        guard let digest = try? Self.sha256(of: part), digest == sha256 else {
            try? FileManager.default.removeItem(atPath: part)
            record.received = 0
            try save(.failed, detail: "the download's SHA-256 is not the manifest's; it was discarded")
            throw DeviceError(.invalidAlternativeDistributionPackageSignature, "\(name): the SHA-256 does not match the manifest")
        }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let final = "\(out)/\(name).zip"
        try? FileManager.default.removeItem(atPath: final)
        try FileManager.default.moveItem(atPath: part, toPath: final)
        try save(.finished, detail: "\(size) bytes, SHA-256 verified, \(final)")
        return (record, final)
    }

    /// Cancels a download: the partial file goes; the state says `cancelled`.
    public func cancel(_ url: String, version: String?) throws -> Bool {
        let (_, productId, asked) = try Self.manifest(of: url)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let prefix = "\(productId)-\((asked ?? version).map { "\($0)." } ?? "")"
        var cancelled = false
        for file in files where file.hasPrefix(prefix) && file.hasSuffix(".json") {
            let statePath = "\(folder)/\(file)"
            guard var record = try? JSONDecoder().decode(Record.self, from: Data(contentsOf: URL(fileURLWithPath: statePath))),
                  record.state != .finished else { continue }
            try? FileManager.default.removeItem(atPath: String(statePath.dropLast(5)) + ".part")
            record.state = .cancelled
            record.received = 0
            try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: statePath))
            say("\(file.dropLast(5)): cancelled")
            cancelled = true
        }
        return cancelled
    }

    struct Interrupted: Error {}

    static func progress(received: Int64, from: Int64, total: Int64, elapsed: TimeInterval) -> String {
        let percent = total > 0 ? Int(Double(received) / Double(total) * 100) : 100
        let rate = elapsed > 0 ? Double(received - from) / elapsed : 0
        let remaining = rate > 0 ? Int((Double(total - received) / rate).rounded(.up)) : nil
        return "  active \(percent)% (\(received) of \(total) bytes)" + (remaining.map { ", about \($0) s left" } ?? "")
    }

    static func sha256(of path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DeviceError(.networkError, "cannot read \(path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
