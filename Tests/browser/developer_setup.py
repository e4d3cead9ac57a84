"""Setup of test_developer_console.py (run by scripts/browser-tests.sh).

  developer_setup.py catalog OUT APP            writes a small in-app catalog file of APP to OUT
  developer_setup.py organisation DB EMAIL ITEM APP
      makes the organisation "browser-studio" in the SQLite database DB of a running server, with the
      account EMAIL as its owner, the marketplace app ITEM and the in-app catalog APP as its own.

The organisation is written straight into the database: the server reads organisations, members
and ownership from there on every request. Values whose storage format is Fluent's (UUIDs, dates)
are copied from the account's own row, so they are stored exactly as the server stores them.
"""

import json
import sqlite3
import sys
import uuid


def catalog(out, app):
    document = {
        "app": app,
        "allowSandbox": True,
        "entitlements": [{"id": "pro", "title": "Pro"}],
        "products": [
            {"id": "studio.pro", "type": "non-consumable", "title": {"en-US": "Pro features"},
             "prices": [{"currency": "USD", "amount": 499}], "entitlements": ["pro"]},
        ],
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)


def organisation(database, email, item, app):
    connection = sqlite3.connect(database, timeout=30)
    with connection:
        account_id, created_at = connection.execute("SELECT id, created_at FROM accounts WHERE email = ?", (email,)).fetchone()
        member_id = uuid.uuid4().bytes if isinstance(account_id, bytes) else str(uuid.uuid4()).upper()
        connection.execute("INSERT INTO developers (id, name, commission_percent, created_at) VALUES (?, ?, NULL, ?)",
                           ("browser-studio", "Browser Studio", created_at))
        connection.execute("INSERT INTO developer_members (id, developer_id, account_id, role, created_at) VALUES (?, ?, ?, 'owner', ?)",
                           (member_id, "browser-studio", account_id, created_at))
        if connection.execute("UPDATE apps SET developer_id = 'browser-studio' WHERE apple_item_id = ?", (int(item),)).rowcount != 1:
            sys.exit(f"no app {item}")
        if connection.execute("UPDATE commerce_apps SET developer_id = 'browser-studio' WHERE app = ?", (app,)).rowcount != 1:
            sys.exit(f"no in-app catalog {app}")
    connection.close()


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    {"catalog": catalog, "organisation": organisation}[command](*arguments)
