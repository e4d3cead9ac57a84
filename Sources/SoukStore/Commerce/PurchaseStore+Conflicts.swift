import FluentPostgresDriver

extension PurchaseStore {
    /// How many times `write` runs a transaction PostgreSQL keeps ending for a conflict.
    static let conflictAttempts = 3

    /// PostgreSQL ended the transaction for a conflict with another one, and rolled it back whole:
    /// SQLSTATE 40P01 (`deadlock_detected`: it was chosen to break a deadlock) or 40001
    /// (`serialization_failure`). Running it again is the documented answer (PostgreSQL manual,
    /// "Serialization Failure Handling").
    static func isConflict(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
    }
}
