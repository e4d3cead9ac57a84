/// What giving an in-app catalog to another owner changed (`DeveloperDirectory.moveCatalog`).
public struct CatalogMove: Sendable, Equatable {
    /// The organisation that owned it before; nil: the marketplace.
    public var before: String?
    /// How many sealed store credentials of the previous owner were removed with the move.
    public var credentialsRemoved: Int

    public init(before: String?, credentialsRemoved: Int) {
        self.before = before
        self.credentialsRemoved = credentialsRemoved
    }
}
