#!/usr/bin/env python3
"""Writes the copy of Souk's OpenAPI document that swift-openapi-generator reads.

The document is valid OpenAPI 3.1 (JSON Schema 2020-12), but the generator's parser (OpenAPIKit)
refuses two of its forms before any filter applies. Both are rewritten to what they mean, and
nothing else changes:
  - a boolean schema as a property (`"restore": true`): `true` is the empty schema `{}`, `false`
    is `{"not": {}}`;
  - an integer bound beyond a 64-bit signed integer (`"maximum": 18446744073709551615`, an Apple
    id's range): the parser reads it as a floating-point number and stops, so the bound is dropped
    (the client never validates bounds; the server does).
Usage: prepare.py SOURCE DESTINATION
"""
import json
import sys

SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")


def rewrite(node):
    if isinstance(node, dict):
        for key in list(node):
            value = node[key]
            if key in SCHEMA_MAPS and isinstance(value, dict):
                for name, schema in value.items():
                    if isinstance(schema, bool):
                        value[name] = {} if schema else {"not": {}}
            if key in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum") \
                    and isinstance(value, int) and not isinstance(value, bool) \
                    and not -2**63 <= value < 2**63:
                del node[key]
                continue
            rewrite(value)
    elif isinstance(node, list):
        for item in node:
            rewrite(item)


def main(source, destination):
    with open(source, encoding="utf-8") as file:
        document = json.load(file)
    rewrite(document)
    with open(destination, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=2, ensure_ascii=False)
        file.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
