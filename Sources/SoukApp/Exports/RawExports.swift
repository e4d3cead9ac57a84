import Foundation
import SoukCore
import SoukStore

/// The raw exports of an app's purchases and lifecycle events (docs/metrics.md, "Exports"): one
/// operation for `souk export`, the developer API's download and the scheduled exports. It takes
/// the actor asking, checks through `DeveloperOwnership` what of the app it reaches (a developer:
/// only its organisation's catalog and apps; scope `purchases:read`), and streams the rows, page
/// by page, so an export of any size is written in constant memory.
package struct RawExports: Sendable {
    package let database: SoukDatabase
    package let ownership: DeveloperOwnership
    package let now: @Sendable () -> Date
    /// Rows read from each table at a time.
    package var pageSize = 500

    package init(database: SoukDatabase, ownership: DeveloperOwnership, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.ownership = ownership
        self.now = now
    }

    package init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(database: runtime.database, ownership: DeveloperServices(runtime: runtime, now: now).ownership, now: now)
    }

    /// Checks the actor's reach and reads each table's first page, so that a refusal or a database
    /// that cannot answer is known before the first byte is written; the stream writes the rest.
    package func open(actor: SoukActor, _ request: RawExportRequest) async throws -> RawExportStream {
        try await open(request, reach: try await ownership.sales(of: request.app, for: actor))
    }

    /// The export an organisation's scheduled export holds: what of the app the organisation owns.
    package func open(organisation developer: String, _ request: RawExportRequest) async throws -> RawExportStream {
        try await open(request, reach: try await ownership.sales(of: request.app, organisation: developer))
    }

    func open(_ request: RawExportRequest, reach: (catalog: Bool, marketplace: MarketplaceSalesScope)) async throws -> RawExportStream {
        let sources = RawExportStore(database: database, now: now)
            .sources(request.kind, app: request.app, catalog: reach.catalog, sales: reach.marketplace, from: request.from.start, to: request.to.end)
        var firstPages: [[ExportRecord]] = []
        for source in sources { firstPages.append(try await source.page(nil, pageSize)) }
        return RawExportStream(request: request, sources: sources, firstPages: firstPages, pageSize: pageSize)
    }
}

/// An export under way: the rows of every source, merged in the order Souk recorded them (ties:
/// purchases or events at the stores first, then the marketplace's sales), written as lines in
/// chunks of about 64 KiB.
package struct RawExportStream: Sendable {
    package let request: RawExportRequest
    let sources: [ExportSource]
    let firstPages: [[ExportRecord]]
    let pageSize: Int

    static let chunkBytes = 64 << 10

    /// Writes the header (CSV) and every row through `emit`; answers how many rows were written.
    @discardableResult
    package func write(_ emit: (String) async throws -> Void) async throws -> Int {
        var pages = firstPages
        var next = Array(repeating: 0, count: sources.count)
        var chunk = RawExportLines.header(request.kind, format: request.format) ?? ""
        var rows = 0
        while true {
            for index in sources.indices where next[index] == pages[index].count && pages[index].count == pageSize {
                // A full page may have more behind it; a short one was the last.
                guard let last = pages[index].last else { continue }
                pages[index] = try await sources[index].page(ExportSource.Position(id: last.id, at: last.at), pageSize)
                next[index] = 0
            }
            var chosen: Int?
            for index in sources.indices where next[index] < pages[index].count {
                if let best = chosen, pages[best][next[best]].at <= pages[index][next[index]].at { continue }
                chosen = index
            }
            guard let chosen else { break }
            chunk += RawExportLines.line(pages[chosen][next[chosen]].values, kind: request.kind, format: request.format)
            next[chosen] += 1
            rows += 1
            if chunk.utf8.count >= Self.chunkBytes {
                try await emit(chunk)
                chunk = ""
            }
        }
        if !chunk.isEmpty { try await emit(chunk) }
        return rows
    }
}
