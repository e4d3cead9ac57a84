import Foundation
import SoukCore

/// One row of a raw export as read: where it sorts (`at`, then `id`) and its values in the
/// columns' order.
public struct ExportRecord: Sendable {
    public var at: Date
    public var id: UUID
    public var values: [ExportValue]
}

/// A table's rows of one export, read page by page in `(time, id)` order. Each page starts after
/// the last row of the one before (its id; the time is looked up again in the database by that id,
/// so no timestamp read back and bound again has to compare equal), so any number of rows is read
/// in constant memory and at the same cost per page.
public struct ExportSource: Sendable {
    /// The row the next page starts after.
    public struct Position: Sendable {
        public var id: UUID
        public var at: Date

        public init(id: UUID, at: Date) {
            self.id = id
            self.at = at
        }
    }

    public var name: String
    public var page: @Sendable (_ after: Position?, _ limit: Int) async throws -> [ExportRecord]

    public init(name: String, page: @escaping @Sendable (_ after: Position?, _ limit: Int) async throws -> [ExportRecord]) {
        self.name = name
        self.page = page
    }
}

/// Whose marketplace sales (paid apps bought through the marketplace's checkout) of an app an
/// export holds.
public enum MarketplaceSalesScope: Sendable, Equatable {
    /// None: the actor does not reach an app with this bundle id.
    case none
    /// Every app with the bundle id (the marketplace's operator side).
    case every
    /// The apps with the bundle id that this organisation owns.
    case developer(String)
}
