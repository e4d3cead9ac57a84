/// Who may install an app: anyone (`public`) or a signed-in account (`account`).
public enum AccessPolicy: String, Sendable, Codable, CaseIterable {
    case `public`
    case account
}

/// Whether an app can be installed at all.
public enum Availability: String, Sendable, Codable, CaseIterable {
    /// Installable, subject to its access policy.
    case available
    /// Withdrawn by its developer; devices get a 404 failure.
    case removedByDeveloper = "removed"
    /// Taken down by the operator (or Apple); devices get a 404 failure.
    case takenDown = "taken_down"

    /// Plain words for operators and people.
    public var summary: String {
        switch self {
        case .available: "available"
        case .removedByDeveloper: "removed by its developer"
        case .takenDown: "taken down"
        }
    }
}
