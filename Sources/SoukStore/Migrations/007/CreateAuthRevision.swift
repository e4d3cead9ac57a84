import FluentKit
import SQLKit

/// A counter that moves whenever a token the bearer caches hold could have stopped being valid, or
/// what they hold of an account changed: an access or refresh token revoked or deleted, an account
/// disabled, re-addressed, made sandbox or deleted. Database triggers move it, whoever writes
/// (Souk, another process, an operator with `psql`), so every process's `BearerCache` can hold a
/// token until it expires and still see a revocation within its check interval.
///
/// Only those columns fire the triggers: `last_used_at` and refresh rotation write `oauth_tokens`
/// all the time and must not empty every cache.
struct CreateAuthRevision: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE TABLE auth_revision (id INTEGER PRIMARY KEY, value BIGINT NOT NULL)").run()
        try await sql.raw("INSERT INTO auth_revision (id, value) VALUES (1, 0)").run()
        let bump = "UPDATE auth_revision SET value = value + 1 WHERE id = 1"
        if sql.dialect.name == "sqlite" {
            for (name, when) in Self.triggers {
                try await sql.raw("""
                    CREATE TRIGGER \(unsafeRaw: name) \(unsafeRaw: when.sqlite) BEGIN \(unsafeRaw: bump); END
                    """).run()
            }
        } else {
            try await sql.raw("""
                CREATE FUNCTION souk_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  \(unsafeRaw: bump);
                  RETURN NULL;
                END $$
                """).run()
            for (name, when) in Self.triggers {
                try await sql.raw("""
                    CREATE TRIGGER \(unsafeRaw: name) \(unsafeRaw: when.postgres) EXECUTE FUNCTION souk_auth_changed()
                    """).run()
            }
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for (name, when) in Self.triggers {
            if sql.dialect.name == "sqlite" {
                try await sql.raw("DROP TRIGGER IF EXISTS \(unsafeRaw: name)").run()
            } else {
                try await sql.raw("DROP TRIGGER IF EXISTS \(unsafeRaw: name) ON \(unsafeRaw: when.table)").run()
            }
        }
        if sql.dialect.name != "sqlite" { try await sql.raw("DROP FUNCTION IF EXISTS souk_auth_changed()").run() }
        try await sql.raw("DROP TABLE auth_revision").run()
    }

    struct When {
        var table: String
        var sqlite: String
        var postgres: String
    }

    static let triggers: [(String, When)] = [
        ("auth_token_revoked", When(
            table: "oauth_tokens",
            sqlite: "AFTER UPDATE OF revoked_at ON oauth_tokens WHEN NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL",
            postgres: "AFTER UPDATE OF revoked_at ON oauth_tokens FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)")),
        ("auth_token_deleted", When(
            table: "oauth_tokens",
            sqlite: "AFTER DELETE ON oauth_tokens WHEN OLD.revoked_at IS NULL",
            postgres: "AFTER DELETE ON oauth_tokens FOR EACH ROW WHEN (OLD.revoked_at IS NULL)")),
        ("auth_account_changed", When(
            table: "accounts",
            sqlite: "AFTER UPDATE OF disabled, email, sandbox ON accounts",
            postgres: "AFTER UPDATE OF disabled, email, sandbox ON accounts FOR EACH ROW")),
        ("auth_account_deleted", When(
            table: "accounts",
            sqlite: "AFTER DELETE ON accounts",
            postgres: "AFTER DELETE ON accounts FOR EACH ROW")),
    ]
}
