import Foundation
import SQLKit
import SoukCore

/// One change in the audit log: who (`actor`: an operator's email, or `cli:<system user>`), what
/// (`action`, e.g. `entitlement.grant`), to what (`target`, e.g. `account:<id>`), when, and the
/// state before and after as JSON objects (nil: nothing before, or nothing after).
public struct AuditEntry: Sendable, Equatable {
    public var id: UUID
    public var at: Date
    public var actor: String
    public var action: String
    public var target: String
    public var before: String?
    public var after: String?

    static let columns = "id, at, actor, action, target, before, after"

    static func decode(_ row: any SQLRow) throws -> AuditEntry {
        AuditEntry(id: try row.decode(column: "id", as: UUID.self), at: try row.decode(column: "at", as: Date.self),
                   actor: try row.decode(column: "actor", as: String.self), action: try row.decode(column: "action", as: String.self),
                   target: try row.decode(column: "target", as: String.self), before: try row.decode(column: "before", as: String?.self),
                   after: try row.decode(column: "after", as: String?.self))
    }

    /// One line of `souk audit export`: `at` (RFC 3339), `actor`, `action`, `target`, `before`, `after`.
    public var exportLine: String {
        func object(_ text: String?) -> Any {
            guard let text, let data = text.data(using: .utf8), let value = try? JSONSerialization.jsonObject(with: data) else { return NSNull() }
            return value
        }
        let line: [String: Any] = ["at": RFC3339.format(at), "actor": actor, "action": action, "target": target,
                                   "before": object(before), "after": object(after)]
        let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// The audit log (`audit_log`): the console and the `souk` commands record their changes here.
public struct AuditLog: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// The actor of a `souk` command: `cli:<the system user running it>`.
    public static var cliActor: String {
        "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? NSUserName())
    }

    /// Writes one entry of `action` by `actor` (its `auditName`). `before` and `after` are flat JSON
    /// objects (never secrets).
    @discardableResult
    public func record(actor: SoukActor, action: AuditAction, target: String, before: [String: String]? = nil,
                       after: [String: String]? = nil) async throws -> AuditEntry {
        try await record(actor: actor.auditName, action: action.rawValue, target: target, before: before, after: after)
    }

    /// Writes one entry of `action` by the actor named `actor` (an email, `cli:<user>`, …).
    @discardableResult
    public func record(actor: String, action: AuditAction, target: String, before: [String: String]? = nil,
                       after: [String: String]? = nil) async throws -> AuditEntry {
        try await record(actor: actor, action: action.rawValue, target: target, before: before, after: after)
    }

    /// Writes one entry. `before` and `after` are flat JSON objects (never secrets). Callers outside
    /// the store name the action by `AuditAction`, so every action string is written in one place.
    @discardableResult
    func record(actor: String, action: String, target: String, before: [String: String]? = nil,
                       after: [String: String]? = nil) async throws -> AuditEntry {
        let entry = AuditEntry(id: UUID(), at: now(), actor: actor, action: action, target: target,
                               before: before.map(Self.json), after: after.map(Self.json))
        try await database.sql.insert(into: "audit_log").columns("id", "at", "actor", "action", "target", "before", "after")
            .values(SQLBind(entry.id), SQLBind(entry.at), SQLBind(entry.actor), SQLBind(entry.action), SQLBind(entry.target),
                    SQLBind(entry.before), SQLBind(entry.after))
            .run()
        return entry
    }

    /// Entries newest first, optionally of one actor, one action and/or one target.
    public func list(actor: String? = nil, action: String? = nil, target: String? = nil, limit: Int = 50,
                     offset: Int = 0) async throws -> [AuditEntry] {
        var query = database.sql.select().column(SQLRaw(AuditEntry.columns)).from("audit_log")
        if let actor, !actor.isEmpty { query = query.where("actor", .equal, actor) }
        if let action, !action.isEmpty { query = query.where("action", .equal, action) }
        if let target, !target.isEmpty { query = query.where("target", .equal, target) }
        return try await query.orderBy("at", .descending).orderBy("id", .descending).limit(limit).offset(offset).all()
            .map(AuditEntry.decode)
    }

    /// Entries at or after `since` (all without it), oldest first: what `souk audit export` writes.
    public func export(since: Date? = nil) async throws -> [AuditEntry] {
        var query = database.sql.select().column(SQLRaw(AuditEntry.columns)).from("audit_log")
        if let since { query = query.where("at", .greaterThanOrEqual, SQLBind(since)) }
        return try await query.orderBy("at").orderBy("id").all().map(AuditEntry.decode)
    }

    static func json(_ object: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
