/// What is wrong with a JSON document, and where: the path of the offending value
/// (`products[2].period`, `data.transaction.storeProductId`, `ce-id` for a CloudEvent header);
/// empty for the whole document.
public struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
