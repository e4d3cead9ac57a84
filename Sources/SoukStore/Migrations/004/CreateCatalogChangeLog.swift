import FluentKit
import SQLKit

/// The catalog change log that keeps every process's in-memory catalog index current.
///
/// Database triggers on `apps` and `app_versions` bump `catalog_revision` (one row) and append the
/// changed app to `catalog_changes` under the new revision, whoever writes — Souk, another Souk
/// process or an operator with `psql`. On PostgreSQL the counter row's lock orders the writers:
/// a revision becomes visible only after every smaller one has committed, so "all changes after
/// revision N" read at revision M is complete. Every change adds exactly one row (the app id is
/// NULL when it cannot be known), so a missing revision means the log was pruned.
struct CreateCatalogChangeLog: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE TABLE catalog_revision (id INTEGER PRIMARY KEY, value BIGINT NOT NULL)").run()
        try await sql.raw("INSERT INTO catalog_revision (id, value) VALUES (1, 0)").run()
        try await sql.raw("CREATE TABLE catalog_changes (revision BIGINT PRIMARY KEY, apple_item_id BIGINT)").run()
        if sql.dialect.name == "sqlite" {
            for (table, row, event) in [("apps", "NEW", "INSERT"), ("apps", "NEW", "UPDATE"), ("apps", "OLD", "DELETE"),
                                        ("app_versions", "NEW", "INSERT"), ("app_versions", "NEW", "UPDATE"),
                                        ("app_versions", "OLD", "DELETE")] {
                let item = table == "apps" ? "\(row).apple_item_id" : "(SELECT apple_item_id FROM apps WHERE id = \(row).app_id)"
                try await sql.raw("""
                    CREATE TRIGGER catalog_\(unsafeRaw: table)_\(unsafeRaw: event.lowercased()) AFTER \(unsafeRaw: event) ON \(unsafeRaw: table) BEGIN
                      UPDATE catalog_revision SET value = value + 1 WHERE id = 1;
                      INSERT INTO catalog_changes (revision, apple_item_id) SELECT value, \(unsafeRaw: item) FROM catalog_revision WHERE id = 1;
                    END
                    """).run()
            }
        } else {
            try await sql.raw("""
                CREATE FUNCTION souk_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                  next_revision BIGINT;
                  item BIGINT;
                BEGIN
                  IF TG_TABLE_NAME = 'apps' THEN
                    IF TG_OP = 'DELETE' THEN item := OLD.apple_item_id; ELSE item := NEW.apple_item_id; END IF;
                  ELSIF TG_OP = 'DELETE' THEN
                    SELECT apple_item_id INTO item FROM apps WHERE id = OLD.app_id;
                  ELSE
                    SELECT apple_item_id INTO item FROM apps WHERE id = NEW.app_id;
                  END IF;
                  UPDATE catalog_revision SET value = value + 1 WHERE id = 1 RETURNING value INTO next_revision;
                  INSERT INTO catalog_changes (revision, apple_item_id) VALUES (next_revision, item);
                  RETURN NULL;
                END $$
                """).run()
            for table in ["apps", "app_versions"] {
                try await sql.raw("""
                    CREATE TRIGGER catalog_\(unsafeRaw: table)_changed AFTER INSERT OR UPDATE OR DELETE ON \(unsafeRaw: table)
                    FOR EACH ROW EXECUTE FUNCTION souk_catalog_changed()
                    """).run()
            }
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        if sql.dialect.name == "sqlite" {
            for table in ["apps", "app_versions"] {
                for event in ["insert", "update", "delete"] {
                    try await sql.raw("DROP TRIGGER IF EXISTS catalog_\(unsafeRaw: table)_\(unsafeRaw: event)").run()
                }
            }
        } else {
            for table in ["apps", "app_versions"] {
                try await sql.raw("DROP TRIGGER IF EXISTS catalog_\(unsafeRaw: table)_changed ON \(unsafeRaw: table)").run()
            }
            try await sql.raw("DROP FUNCTION IF EXISTS souk_catalog_changed()").run()
        }
        try await sql.raw("DROP TABLE catalog_changes").run()
        try await sql.raw("DROP TABLE catalog_revision").run()
    }
}
