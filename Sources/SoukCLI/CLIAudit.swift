import SoukApp
import SoukCore
import SoukStore

extension SoukRuntime {
    /// Records a change made by a `souk` command in the audit log (actor `cli:<system user>`), as the
    /// console records its own. Flat before/after fields, never a secret.
    func auditCLI(_ action: AuditAction, target: String, before: [String: String]? = nil, after: [String: String]? = nil) async throws {
        try await AuditLog(database: database).record(actor: AuditLog.cliActor, action: action, target: target, before: before, after: after)
    }
}
