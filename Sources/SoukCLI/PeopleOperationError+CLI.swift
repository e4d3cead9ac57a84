import SoukApp

extension PeopleOperationError {
    /// The `Error: …` line a `souk` command prints for what an operation on a person refused.
    var commandFailure: CommandFailure {
        switch self {
        case .refused(let message), .invalid(let message): CommandFailure(message)
        case .noCatalog(let app): CommandFailure("\(app) has no in-app catalog; apply one with `souk catalog apply` first")
        case .noSuchGrant: CommandFailure("no such grant")
        }
    }

    /// Runs `body`, turning what an operation on a person refused into its command failure.
    @discardableResult
    static func failing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PeopleOperationError {
            throw error.commandFailure
        }
    }
}
