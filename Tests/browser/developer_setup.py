"""Setup of test_developer_console.py (run by scripts/browser-tests.sh).

  developer_setup.py catalog OUT APP            writes a small in-app catalog file of APP to OUT

Everything else of the developer's day (the organisation, its owner, its app and catalog) is made
with the real `souk` commands by scripts/browser-tests.sh.
"""

import json
import sys


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


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    {"catalog": catalog}[command](*arguments)
