/// Why a catalog file (or a catalog value) cannot be applied: the JSON path of the offending value
/// (`products[2].period`) and what is wrong with it. Nothing is applied when there is one.
public struct CatalogFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the file: `app`, `entitlements[0].id`, `products[2].prices[1].currency`; empty for the whole file.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
