#!/usr/bin/env python3
"""A full disk during import (part of scripts/fault-check.sh, run by fault_check.py in a private
mount namespace, `unshare -m`, so that its file system cannot outlive it):

    full_disk.py WORK SOUK SUMMARY.json

A 48 MiB tmpfs holds a SQLite data folder. A package of two 40 MB variants cannot fit:
- `souk packages import` of it as a folder and as a zip must fail with an error that says the disk
  is full (not that the package is bad), and leave nothing: no version or file rows, no blob,
  nothing in blobs/tmp or the work folder once `souk maintenance cleanup` ran;
- with a `souk serve` on that folder and the disk filled to the last byte: a license request
  (a write) is a 503 problem with Retry-After or its license, never a 500; an import fails
  cleanly; once space is freed, the same server answers without a restart and the import works.
Writes the outcome to SUMMARY.json for fault_check.py."""
import errno, json, os, subprocess, sys, time

import faultlib
from faultlib import REPORT, Database, Fatal, Server, http, log, souk, staging_leftovers, blob_files

SIZE = "48m"
BIG_APP, BIG_BUNDLE = "6500000001", "org.souk.fault.big"


def mounted(path):
    with open("/proc/self/mounts") as handle:
        return any(line.split()[1] == path for line in handle)


def fill(path):
    """Writes `path` until the file system refuses another byte; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as handle:
        for size in (1 << 20, 4096, 512, 1):
            block = b"\0" * size
            while True:
                try:
                    handle.write(block)
                    written += size
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    return written


def attempt(env, souk_bin, package, version, label, db, data):
    before = set(blob_files(data))
    run = souk(souk_bin, env, "packages", "import", package, ok=False)
    said = (run.stdout + run.stderr).strip()
    rows = db.rows(f"SELECT COUNT(*) FROM app_versions WHERE apple_version_id = {version}")
    REPORT.check("full-disk-atomic", run.returncode != 0 and int(rows[0][0]) == 0,
                 f"{label}: exit {run.returncode}, version rows {rows}: {said[-200:]}")
    new_blobs = set(blob_files(data)) - before
    REPORT.check("full-disk-atomic", not new_blobs, f"{label}: blobs left in blobs/sha256: {sorted(new_blobs)[:3]}")
    left = staging_leftovers(data)
    if left:
        cleanup = souk(souk_bin, env, "maintenance", "cleanup", ok=False)
        left = staging_leftovers(data)
        REPORT.check("full-disk-leftovers", not left, f"{label}: after `souk maintenance cleanup` "
                     f"({cleanup.stdout.strip()}) these remain: {[os.path.relpath(p, data) for p in left]}")
    else:
        REPORT.check("full-disk-leftovers", True, "")
    return said


def main(work, souk_bin):
    mount = os.path.join(work, "small")
    os.makedirs(mount, exist_ok=True)
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", mount], capture_output=True, text=True)
    if run.returncode != 0:
        message = f"cannot mount a small tmpfs here ({run.stderr.strip()}): the full-disk check is SKIPPED"
        if os.environ.get("CI") == "true":
            REPORT.check("full-disk", False, message)
        else:
            REPORT.note("⚠️  " + message)
        return
    log(f"full disk: a {SIZE} tmpfs at {mount} ({'private mount namespace' if os.environ.get('FAULT_UNSHARE') else 'global: unmounted at the end'})")
    server = None
    try:
        data = os.path.join(mount, "data")
        env = dict(os.environ, SOUK_DATA_DIR=data, SOUK_LOG_LEVEL="warning")
        env.pop("SOUK_DATABASE_URL", None)
        db = Database(data)
        souk(souk_bin, env, "apps", "create", "--apple-item-id", BIG_APP, "--bundle-id", BIG_BUNDLE, "--name", "Fault big")
        packages = os.path.join(work, "full-packages")

        def sample(version, size):
            folder = os.path.join(packages, version)
            souk(souk_bin, env, "packages", "make-sample", "--apple-item-id", BIG_APP, "--apple-version-id", version, "--bundle-id", BIG_BUNDLE,
                 "--short-version", "1.0", "--bundle-version", "1", "--min-os", "17.0", "--variant-size", str(size), "--out", folder)
            return folder

        big = sample("9400000001", 40_000_000)
        said = attempt(env, souk_bin, big, "9400000001", "full disk, folder import", db, data)
        REPORT.check("full-disk-error", "space" in said.lower() or "disk is full" in said.lower(),
                     f"full disk, folder import: the error does not say the disk is full: {said[-300:]}")
        REPORT.note(f"full disk, folder import says: {said[-300:]}")
        archive = big + ".zip"
        subprocess.run(["python3", "-c", "import os, sys, zipfile\nwith zipfile.ZipFile(sys.argv[2], 'w') as z:\n"
                        "    for folder, _, names in os.walk(sys.argv[1]):\n        for name in names:\n"
                        "            path = os.path.join(folder, name); z.write(path, os.path.relpath(path, sys.argv[1]))",
                        big, archive], check=True)
        said = attempt(env, souk_bin, archive, "9400000001", "full disk, zip import", db, data)
        REPORT.check("zip-full-disk", ("space" in said.lower() or "disk is full" in said.lower()) and "damaged" not in said,
                     f"full disk, zip import: {said[-300:]}")
        REPORT.note(f"full disk, zip import says: {said[-300:]}")

        # A server whose disk fills up.
        small = sample("9400000002", 200_000)
        souk(souk_bin, env, "packages", "import", small)
        port = faultlib.free_port()
        env["SOUK_PUBLIC_URL"] = f"http://127.0.0.1:{port}"
        server = Server(souk_bin, work, env, port, os.path.join(work, "serve-full-disk.log"))
        server.start()
        import fault_check as fc
        market = fc.lc.Marketplace(server.base)
        asset = market.asset(BIG_APP, "9400000002")

        def license_request():
            request, key = market.seal(json.dumps({"requestId": 1, "deviceId": os.urandom(8).hex(), "action": "create",
                                                   "appleItemIds": [BIG_APP]}).encode())
            return http("POST", market.config["dynamicLicenseURL"], {"licenseRequest": request, "licenseKey": key,
                                                                     "appsById": {BIG_APP: {"appleVersionId": "9400000002", "assetPublicId": asset}}})

        status, _, _ = license_request()
        REPORT.check("full-disk-server", status == 200, f"a license before the disk filled: {status}")
        filler = os.path.join(mount, "filler")
        written = fill(filler)
        answers = []
        for _ in range(5):
            status, headers, body = license_request()
            answers.append(status)
            REPORT.check("full-disk-server", status == 200 or (faultlib_problem(status, headers, body)),
                         f"a license request on a full disk answered {status} {body[:200]!r}")
        health = http("GET", f"{server.base}/health")
        REPORT.note(f"full disk, a server: filled {written / 1e6:.1f} MB; license requests answered {answers}; /health {health[0]} {health[2][:80]!r}")
        blocked = sample("9400000003", 200_000)
        said = attempt(env, souk_bin, blocked, "9400000003", "full disk, an import beside a running server", db, data)
        REPORT.check("full-disk-error", "space" in said.lower() or "disk is full" in said.lower() or "unavailable" in said.lower(),
                     f"full disk, an import beside a running server: {said[-300:]}")
        os.remove(filler)
        deadline = time.time() + 10
        while True:
            status, _, _ = license_request()
            if status == 200 or time.time() > deadline:
                break
            time.sleep(0.3)
        REPORT.check("full-disk-recovery", status == 200, f"a license after space was freed: {status}")
        run = souk(souk_bin, env, "packages", "import", blocked, ok=False)
        REPORT.check("full-disk-recovery", run.returncode == 0, f"the import after space was freed: {(run.stdout + run.stderr)[-200:]}")
        check = faultlib.check_invariants
        check(db, "full disk")
        server.stop()
        server = None
    except Fatal as error:
        REPORT.check("full-disk", False, str(error))
    finally:
        if server is not None and server.running:
            server.kill9()
        subprocess.run(["umount", mount], capture_output=True)
        if mounted(mount):
            subprocess.run(["umount", "-l", mount], capture_output=True)
        REPORT.check("full-disk-unmounted", not mounted(mount), f"{mount} is still mounted")


def faultlib_problem(status, headers, body):
    if status != 503 or not headers.get("Retry-After") or not headers.get("Content-Type", "").startswith("application/problem+json"):
        return False
    return json.loads(body).get("status") == 503


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    finally:
        with open(sys.argv[3], "w") as handle:
            json.dump({"passed": REPORT.passed, "known": REPORT.known, "failures": REPORT.failures, "notes": REPORT.notes,
                       "counts": REPORT.counts}, handle)
