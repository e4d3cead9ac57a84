import Foundation

extension CatalogStore {
    /// The accounts of the same database, as values (`AccountRecord`).
    public var people: PeopleDirectory { PeopleDirectory(database: database) }
}
