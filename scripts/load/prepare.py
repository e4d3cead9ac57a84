#!/usr/bin/env python3
"""Writes the request files of scripts/load.sh, one request per line, for scripts/load/requests.lua.

    prepare.py requests BASE OUT SAMPLE TOKENS APPS     # every endpoint but purchases
    prepare.py purchases OUT TOKENS FOR_SALE            # checkouts nobody has made yet
    prepare.py warm BASE TOKENS                         # one entitlement check per token, 16 at a time

A line is METHOD <tab> PATH <tab> BEARER TOKEN or '-' <tab> JSON BODY or nothing.

SAMPLE is a tab-separated dump of seeded devices (one account each): account id, device id, its
installed apps as "appleItemId:currentAppleVersionId,…", its live licenses of free apps as
"licenseId,…" (soonest to expire first). TOKENS holds access tokens minted by `souk bench
seed-purchases` (one per line); APPS is the catalog size; FOR_SALE lists priced apps no seeded
account has bought yet.

Renewal envelopes are sealed the way a device seals them (docs/licensing.md), with the encryption
certificate BASE publishes, through scripts/license-check.py's `Marketplace`.
"""
import http.client, importlib.util, json, os, random, sys, threading, urllib.parse

_spec = importlib.util.spec_from_file_location("license_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "license-check.py"))
license_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(license_check)

# The words `souk bench seed-catalog` puts into names, subtitles and descriptions (BenchCommand.words).
WORDS = ["notes", "weather", "photos", "music", "budget", "recipes", "maps", "fitness", "books", "chess", "travel",
         "sleep", "garden", "language", "camera", "podcast", "calendar", "tasks", "news", "puzzle"]
APP_BASE = 7_000_000_000
BENCH_APP, BENCH_PRODUCT = "org.example.bench.reader", "bench.monthly"


def line(method, path, token=None, body=None):
    body = "" if body is None else json.dumps(body)
    assert "\t" not in body and "\n" not in body
    return f"{method}\t{path}\t{token or '-'}\t{body}\n"


def write(out, name, lines):
    with open(os.path.join(out, name + ".req"), "w") as f:
        f.writelines(lines)
    print(f"prepare: {name}: {len(lines)} requests", file=sys.stderr)


def requests(base, out, sample_file, token_file, apps):
    rng = random.Random(15)
    devices = []
    with open(sample_file) as f:
        for row in f:
            account, device, items, licenses = (row.rstrip("\n").split("\t") + ["", "", "", ""])[:4]
            if items:
                devices.append((device, [tuple(i.split(":")) for i in items.split(",")], licenses.split(",") if licenses else []))
    if not devices:
        sys.exit("prepare: the sample holds no device with installs")
    tokens = [t for t in open(token_file).read().split() if t]

    # Update checks: a device names every app it installed from the marketplace, at the version it
    # runs. One device in ten runs an older version of one app (a version id the catalog does not
    # know), so it is offered the update with a signed install verification token.
    updates = []
    for n, (_, items, _) in enumerate(devices):
        apps_ = [{"appleItemId": item, "appleVersionId": version} for item, version in items]
        if n % 10 == 0:
            apps_[0]["appleVersionId"] = "1"
        updates.append(line("POST", "/marketplace-kit/v1/updates", body={"apps": apps_, "platform": "iOS", "osVersion": "18.0"}))
    write(out, "updates", updates)

    # License renewals: the one to three licenses of a device that expire first, sealed like a device.
    market = license_check.Marketplace(base)
    renew_path = urllib.parse.urlsplit(market.config["licenseRenewalURL"]).path
    renewals = []
    for device, _, licenses in devices:
        if not licenses:
            continue
        ids = licenses[:rng.randint(1, 3)]
        plain = json.dumps({"requestId": rng.randrange(1, 2 ** 63), "deviceId": device, "action": "renew", "licenseIds": ids}).encode()
        request, key = market.seal(plain)
        renewals.append(line("POST", renew_path, body={"renewalRequest": request, "licenseKey": key}))
    if not renewals:
        sys.exit("prepare: the sample holds no live license of a free app")
    write(out, "renewals", renewals)

    # Entitlement checks: every token in turn (each account holds an active bench.monthly).
    write(out, "entitlements", [line("GET", f"/commerce/{BENCH_APP}/entitlement/{BENCH_PRODUCT}", token) for token in tokens])

    # Storefront pages, anonymous: the home page, catalog pages, app pages and searches.
    write(out, "home", [line("GET", "/")])
    pages = max(1, apps // 50)
    write(out, "list", [line("GET", "/apps")] + [line("GET", f"/apps?page={rng.randint(2, max(2, min(pages, 200)))}") for _ in range(999)])
    write(out, "app", [line("GET", f"/apps/{APP_BASE + rng.randrange(apps)}") for _ in range(5000)])
    searches = [urllib.parse.quote_plus(w) for w in WORDS] + [f"bench+{rng.randrange(apps)}" for _ in range(200)] \
        + [urllib.parse.quote_plus(f"{rng.choice(WORDS)} {rng.choice(WORDS)}") for _ in range(200)]
    write(out, "search", [line("GET", f"/search?q={q}") for q in searches])


def purchases(out, token_file, for_sale_file):
    """Checkouts of priced apps: pair p is token p % T buying app p // T, so that requests in a row
    come from different accounts. Every pair is new: FOR_SALE lists only apps nobody bought yet."""
    tokens = [t for t in open(token_file).read().split() if t]
    apps = [a for a in open(for_sale_file).read().split() if a]
    if not apps:
        sys.exit("prepare: no app for sale that is still unbought")
    lines = [line("POST", "/api/v1/checkout", tokens[p % len(tokens)], {"appleItemId": apps[p // len(tokens)]})
             for p in range(len(tokens) * len(apps))]
    write(out, "purchases", lines)


def warm(base, token_file):
    """Every token's first entitlement check on one process: what a day's first request of each
    person costs (the token and the person's purchases read, `last_used_at` written), paid before
    the measured runs, which then see people the process already knows."""
    tokens = [t for t in open(token_file).read().split() if t]
    url = urllib.parse.urlsplit(base)
    failures, lock = [], threading.Lock()

    def worker(part):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        for token in part:
            connection.request("GET", f"/commerce/{BENCH_APP}/entitlement/{BENCH_PRODUCT}", headers={"Authorization": f"Bearer {token}"})
            answer = connection.getresponse()
            body = answer.read()
            if answer.status != 200:
                with lock:
                    failures.append((answer.status, body[:200]))
    threads = [threading.Thread(target=worker, args=(tokens[i::16],)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        sys.exit(f"prepare: {len(failures)} entitlement checks failed during the warm-up, first: {failures[0]}")


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "requests":
        requests(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    elif len(sys.argv) == 5 and sys.argv[1] == "purchases":
        purchases(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "warm":
        warm(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
