import Foundation
import SoukCore
import SoukStore

/// A page position as the API hands it out: opaque to the client, so its form may change.
public enum DeveloperCursor {
    public static func encode(_ offset: Int) -> String {
        Data("o:\(offset)".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The offset a cursor names; nil for anything this server did not hand out.
    public static func decode(_ cursor: String) -> Int? {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard cursor.count <= 64, let data = Data(base64Encoded: text), let plain = String(data: data, encoding: .utf8),
              plain.hasPrefix("o:"), let offset = Int(plain.dropFirst(2)), offset >= 0 else { return nil }
        return offset
    }
}

extension DeveloperOperations {
    /// A page's size: 1–200, 50 unless asked.
    static let pageSizes = 1...200
    static let defaultPageSize = 50

    /// The purchases of one of the organisation's catalogs, oldest first, buyers by account token.
    public func purchases(actor: SoukActor, app: String, cursor: String?, limit: Int?)
        async throws -> (items: [DeveloperPurchase], nextCursor: String?) {
        let (offset, size) = try Self.page(cursor: cursor, limit: limit)
        _ = try await ownership.catalog(app, for: actor, scope: .purchasesRead)
        let page = try await DeveloperSales(database: database, now: now).purchases(app: app, offset: offset, limit: size)
        return (page.items, page.nextOffset.map(DeveloperCursor.encode))
    }

    /// The lifecycle events of one of the organisation's catalogs, oldest first, buyers by account token.
    public func events(actor: SoukActor, app: String, cursor: String?, limit: Int?)
        async throws -> (items: [DeveloperEvent], nextCursor: String?) {
        let (offset, size) = try Self.page(cursor: cursor, limit: limit)
        _ = try await ownership.catalog(app, for: actor, scope: .purchasesRead)
        let page = try await DeveloperSales(database: database, now: now).events(app: app, offset: offset, limit: size)
        return (page.items, page.nextOffset.map(DeveloperCursor.encode))
    }

    static func page(cursor: String?, limit: Int?) throws -> (offset: Int, size: Int) {
        let size = limit ?? defaultPageSize
        guard pageSizes.contains(size) else { throw DeveloperOperationError.badParameter(field: "limit", "must be from 1 to 200") }
        guard let cursor, !cursor.isEmpty else { return (0, size) }
        guard let offset = DeveloperCursor.decode(cursor) else {
            throw DeveloperOperationError.badParameter(field: "cursor", "is not a cursor this server handed out (nextCursor)")
        }
        return (offset, size)
    }
}
