"""Scheduled exports (docs/metrics.md, "Exports") to moto's S3 server with its signature checks on
(scripts/e2e-s3.sh runs it after s3_check.py's blob checks, with the same SOUK_S3_* settings):

  exports_check.py ENDPOINT SOUK KEYS.json

An organisation with an app and its in-app catalog gets yesterday's purchases.csv, events.csv,
metrics.jsonl and cohorts.jsonl under exports/<developer>/<day>/<app>/, once; with a wrong secret
the day fails (moto refuses the signature), is recorded and is written by the next run.
"""
import datetime
import json
import os
import sys

from s3_check import BUCKET, client, expect, souk


def main(endpoint, souk_bin, keys_file):
    keys = json.load(open(keys_file))
    s3 = client(endpoint, keys["id"], keys["secret"])
    env = {**os.environ, "SOUK_SCHEDULED_EXPORTS": "true"}
    souk(souk_bin, "developers", "add", "--name", "Exports E2E", "--id", "exports-e2e")
    souk(souk_bin, "apps", "create", "--apple-item-id", "6449990001", "--bundle-id", "org.e2e.exports", "--name", "Exports",
         "--developer", "exports-e2e")
    # The app's in-app catalog, the organisation's: its days have metrics files too.
    catalog = os.path.join(os.path.dirname(keys_file), "exports-catalog.json")
    with open(catalog, "w", encoding="utf-8") as handle:
        json.dump({"app": "org.e2e.exports", "entitlements": [{"id": "pro", "title": "Pro"}],
                   "products": [{"id": "exports.pro", "type": "non-consumable", "title": {"en-US": "Pro"},
                                 "prices": [{"currency": "USD", "amount": 499}], "entitlements": ["pro"]}]}, handle)
    souk(souk_bin, "catalog", "apply", catalog)
    souk(souk_bin, "catalog", "set-developer", "--app", "org.e2e.exports", "--developer", "exports-e2e")
    yesterday = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)).strftime("%Y-%m-%d")

    wrong = {**env, "SOUK_S3_SECRET_ACCESS_KEY": "not-the-secret"}
    refused = souk(souk_bin, "export", "scheduled", env=wrong).stdout
    expect("Written: 0" in refused and "org.e2e.exports" in refused, f"a refused signature fails the day: {refused}")
    listed = souk(souk_bin, "export", "scheduled", "--list", env=env).stdout
    expect("exports-e2e" in listed and "403" in listed, f"the failed day is recorded with the store's answer: {listed}")

    written = souk(souk_bin, "export", "scheduled", env=env).stdout
    expect("failed: 0" in written and not written.startswith("Written: 0"), f"the next run writes the day: {written}")
    prefix = f"exports/exports-e2e/{yesterday}/org.e2e.exports/"
    # Listed whole and filtered here: moto's signature check refuses a listing's encoded Prefix.
    found = sorted(item["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
                   for item in page.get("Contents", []) if item["Key"].startswith(prefix))
    expect(found == [prefix + name for name in ["cohorts.jsonl", "events.csv", "metrics.jsonl", "purchases.csv"]],
           f"the day's four files: {found}")
    metrics = s3.get_object(Bucket=BUCKET, Key=prefix + "metrics.jsonl")["Body"].read().decode().splitlines()
    expect(len(metrics) == 11 and all(json.loads(line)["date"] == yesterday and json.loads(line)["app"] == "org.e2e.exports"
                                      for line in metrics), f"the day's metrics, one line each: {metrics}")
    cohorts = s3.get_object(Bucket=BUCKET, Key=prefix + "cohorts.jsonl")["Body"].read().decode()
    expect(cohorts == "", f"no subscriber yet, no cohort: {cohorts!r}")
    body = s3.get_object(Bucket=BUCKET, Key=prefix + "purchases.csv")["Body"].read().decode()
    expect(body.startswith("recorded_at,app,store,environment,status,") and body.endswith("\r\n"), f"a CSV with its header: {body[:120]}")
    again = souk(souk_bin, "export", "scheduled", env=env).stdout
    expect(again.startswith("Written: 0, failed: 0"), f"a day is written once: {again}")
    print("s3: scheduled exports written once per day, a refused upload recorded and written at the next run")


if __name__ == "__main__":
    main(*sys.argv[1:4])
