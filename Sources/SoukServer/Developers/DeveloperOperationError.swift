import Foundation

/// Why a developer operation did not happen. The HTTP face maps it once
/// (`DeveloperOperationError+HTTP.swift`): `notFound` → 404, `forbidden` → 403, `invalid` → 400.
public enum DeveloperOperationError: Error, Equatable, CustomStringConvertible {
    /// Not there, or another organisation's: the same answer, so that no id of another
    /// organisation is ever confirmed.
    case notFound(String)
    /// Reachable, but not for this actor (a key without the scope, a member where an owner is needed).
    case forbidden(String)
    /// Bad input, naming what is wrong.
    case invalid(String)

    public var description: String {
        switch self {
        case .notFound(let text), .forbidden(let text), .invalid(let text): text
        }
    }
}
