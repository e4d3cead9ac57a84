import Foundation

/// Who does something: every operation takes one, checks the actor's scope, and writes it into the
/// audit log (docs/development.md, "Layers"). The audit log's `actor` column holds `auditName`.
/// Named `SoukActor` because Swift's concurrency library owns `Actor`.
public enum SoukActor: Sendable, Hashable {
    /// A member of the marketplace's staff signed in to `/admin` (`support` or `operator`).
    case staff(accountID: UUID, email: String, role: AccountRole)
    /// A member of a developer organisation signed in to `/developer`.
    case developerMember(accountID: UUID, email: String, developerID: String, role: DeveloperRole)
    /// A developer organisation's API key (`/api/v1/developer/…`).
    case developerKey(keyID: UUID, developerID: String, scopes: Set<DeveloperScope>)
    /// A `souk` command run by a system user on the server.
    case cli(user: String)
    /// Souk itself: a worker, a store's notification, the demo seeder.
    case system(String)

    /// The actor column of an audit entry: an email for people (as the console has always written),
    /// `apikey:<id>` for keys, `cli:<user>`, `system:<name>`.
    public var auditName: String {
        switch self {
        case .staff(_, let email, _), .developerMember(_, let email, _, _): email
        case .developerKey(let keyID, _, _): "apikey:" + keyID.uuidString.lowercased()
        case .cli(let user): "cli:" + user
        case .system(let name): "system:" + name
        }
    }

    /// The organisation a developer actor acts for; nil for staff, the CLI and the system.
    public var developerID: String? {
        switch self {
        case .developerMember(_, _, let id, _), .developerKey(_, let id, _): id
        case .staff, .cli, .system: nil
        }
    }

    /// Whether the actor may act across every organisation (the operator's side: staff with the
    /// operator role, the CLI, the system). Support staff read, but do not change developers' things.
    public var isMarketplaceOperator: Bool {
        switch self {
        case .staff(_, _, let role): role == .operator
        case .cli, .system: true
        case .developerMember, .developerKey: false
        }
    }

    /// Whether a developer actor may do what `scope` names: a member may do everything in their
    /// organisation; a key only what its scopes list. Non-developer actors: false.
    public func developerMay(_ scope: DeveloperScope) -> Bool {
        switch self {
        case .developerMember: true
        case .developerKey(_, _, let scopes): scopes.contains(scope)
        case .staff, .cli, .system: false
        }
    }

    /// The `cli:<user>` actor of the system user running this process.
    public static var currentCLIUser: SoukActor {
        let env = ProcessInfo.processInfo.environment
        return .cli(user: env["USER"] ?? env["LOGNAME"] ?? NSUserName())
    }
}
