#!/usr/bin/env python3
"""Faults that lose nothing, checked against the real binary. Run by
scripts/fault-check.sh, which sets up the folders, the PostgreSQL database and the cleanup:

    fault_check.py run WORK SOUK

1. Kills (`kill -9`), on SQLite and, when FAULT_PG_URL is set, on PostgreSQL. Each round runs a
   concurrent workload against `souk serve` — Apple purchases posted to the commerce API (a
   subscription, a non-consumable and a consumable, each a new store transaction, signed by an
   Apple-shaped chain made in Python), their webhook events delivered to a slow receiver (0.1 s an
   answer, so one is in flight most of the time), MarketplaceKit license requests (public and
   account apps), checkouts of paid apps (development processor) — and a `souk packages import` of a
   128 MB package in its own process. Both are killed with SIGKILL at random points (Souk at the
   first moment after its random point when a webhook delivery is in flight); Souk is started
   again on the same data; then:
   - no half-written state: the invariants of `faultlib.INVARIANTS` (a version with all its file
     rows, no file row without a version, a granted purchase with its store facts and its event,
     balances equal to their purchases, no order paid without what was paid, …), SQLite's
     integrity and foreign-key checks, every blob a row names on disk with its size and digest,
     and the blobs no row names (a killed import's) listed: they stay a day, then the sweep of
     unreferenced blobs removes them (checked with every blob made two days old);
   - no lost committed work: every purchase answered 201 is there with its payment id and
     entitles its account; every license answered 200 renews and is answered again with the same
     id; every order answered 201 is paid and licenses its app; the import is all there or not at
     all, and importing it again works;
   - idempotent retries: every purchase posted again (answered or not before the kill) gives the
     same payment, one row per store transaction, a consumable credited once; a checkout retried
     ends paid or `already-owned`;
   - the files of the killed import: listed, and checked gone after the next start and after
     `souk maintenance cleanup` (the issue's rule);
   - at the end, every committed event delivered to the receiver at least once with the same id
     and the same body (the receiver counts duplicates), every delivery `delivered`.
   Besides: more imports killed at spread-out points without a server; `souk maintenance cleanup`
   during a live import (it must not break it); a version transaction that fails after the blobs
   were renamed into place (an injected trigger, standing for a full disk or a lost connection at
   that moment); the exact state a kill between a development checkout's attach and markPaid
   leaves (written with SQL), then the buyer's retry.
2. PostgreSQL restarted under load (outage_load.py): its own cluster, a load of update checks,
   entitlement checks, storefront pages, license requests, purchases and /health; a fast restart, then an
   immediate stop, 4 s down, a start; every answer is the right verdict or a 503 problem with
   Retry-After; /health says "unreachable"; Souk recovers without a restart.
3. A full disk (full_disk.py, in a private mount namespace on a small tmpfs): imports of a folder
   and a zip that do not fit, and a server whose disk fills up.
"""
import copy, datetime as dt, hashlib, importlib.util, itertools, json, os, random, secrets, shutil, subprocess, sys, threading, time, uuid, zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultlib  # noqa: E402
from faultlib import REPORT, Database, Fatal, NoAnswer, Server, BlobAudit, check_invariants, http, log, souk, staging_leftovers  # noqa: E402


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(faultlib.ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cc = load("commerce_check", "scripts/commerce-check.py")
lc = load("license_check", "scripts/license-check.py")
cc.NAME = "fault-check"

APP = cc.APP
PASSWORD = "fault check " + secrets.token_hex(8)
NOTES, STUDIO = "6446000001", "6446000003"          # `souk demo seed`: a public app and an account app
NOTES_LATEST, STUDIO_LATEST = "8000000102", "8000000302"
BIG_APP, BIG_BUNDLE = "6500000001", "org.souk.fault.big"
PAID_APPS = [(str(6600000001 + k), f"org.souk.fault.paid{k}", str(9100000001 + k)) for k in range(2)]
ACCOUNTS = 4
ROUNDS = 3
EXTRA_IMPORT_KILLS = 3
VARIANT_BYTES = 64 << 20
CHUNK = 1 << 20
RECEIVER_DELAY = 0.1
WEBHOOK_LEASE = 60   # WebhookStore.lease: a delivery in flight when Souk died is tried again after it


def catalog():
    document = copy.deepcopy(cc.CATALOG)
    document["products"].append({"id": "reader.coins.100", "type": "consumable", "title": {"en-US": "100 coins"},
                                 "prices": [{"currency": "USD", "amount": 99}], "skus": {"apple_store": f"{APP}.coins100"}})
    return document


PRODUCTS = {  # kind → (product id, SKU, Apple type, days of validity (0: none), what GET entitlement/<id> must grant)
    "monthly": ("reader.monthly", f"{APP}.monthly", "Auto-Renewable Subscription", 30, "reader.monthly"),
    "book": ("reader.book.1", f"{APP}.book1", "Non-Consumable", 0, "reader.book.1"),
    "coins": ("reader.coins.100", f"{APP}.coins100", "Consumable", 0, None),
}


# MARK: Packages

class Packages:
    """128 MB packages of the big app, one per AppleVersionID, made fast: two variants copied from
    one random file with a different first 64 bytes each (so every version has its own blobs), and
    chunk digests of which only the first is computed again."""

    def __init__(self, folder):
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        self.base = os.path.join(folder, "base.bin")
        with open(self.base, "wb") as handle:
            handle.write(random.randbytes(VARIANT_BYTES))
        self.digests = []
        with open(self.base, "rb") as handle:
            while chunk := handle.read(CHUNK):
                self.digests.append(hashlib.sha256(chunk).hexdigest())
        with open(self.base, "rb") as handle:
            self.first = handle.read(CHUNK)

    def make(self, version, as_zip=False):
        root = os.path.join(self.folder, version)
        os.makedirs(os.path.join(root, "variant"), exist_ok=True)
        variants = []
        for index, device in enumerate(("iphone", "ipad")):
            public_id = str(uuid.UUID(hashlib.md5(f"{version}-{device}".encode()).hexdigest()))
            path = f"variant/{public_id}.ipa"
            salt = hashlib.sha512(f"{version}-{device}".encode()).digest()
            shutil.copyfile(self.base, os.path.join(root, path))
            with open(os.path.join(root, path), "r+b") as handle:
                handle.write(salt)
            digests = [hashlib.sha256(salt + self.first[len(salt):]).hexdigest()] + self.digests[1:]
            variants.append({"assetPath": path, "publicId": public_id, "installTargets": [{"device": device, "os": "ios"}],
                             "variantDetails": {"compressedSize": VARIANT_BYTES, "uncompressedSize": VARIANT_BYTES,
                                                "hashes": [{"algorithm": "sha256", "chunkSize": CHUNK, "encryptedChunkDigests": digests,
                                                            "unencryptedChunkDigests": digests}]}})
        manifest = {"appleItemId": BIG_APP, "appleVersionId": version, "bundleId": BIG_BUNDLE, "bundleVersion": version[-3:],
                    "shortVersionString": f"1.{version[-3:]}", "platforms": ["ios"], "minimumSystemVersions": {"ios": "17.0"},
                    "requiredDeviceCapabilities": ["arm64"], "manifestSchemaVersion": 1, "distributionPackageRevision": 1,
                    "deltas": [], "variants": variants}
        body = json.dumps(manifest, indent=1, sort_keys=True).encode()
        with open(os.path.join(root, "manifest.json"), "wb") as handle:
            handle.write(body)
        with open(os.path.join(root, "signature"), "w") as handle:
            handle.write(f"FAULT-CHECK-SIGNATURE\nsha256(manifest.json)={hashlib.sha256(body).hexdigest()}\n")
        if not as_zip:
            return root
        archive = root + ".zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as output:
            for name in ["manifest.json", "signature"] + [v["assetPath"] for v in variants]:
                output.write(os.path.join(root, name), name)
        shutil.rmtree(root)
        return archive

    def remove(self, path):
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.exists(path):
            os.remove(path)


# MARK: The webhook receiver

class Receiver:
    """The developer's server, slow on purpose: it reads a delivery, waits RECEIVER_DELAY, answers
    200. It keeps every delivery (event id, body, whether the signature verified), so duplicates
    are counted and deduplicated by event id as docs/commerce.md asks of receivers."""

    def __init__(self):
        self.lock = threading.Lock()
        self.deliveries = {}    # path → [(event id, body, signature ok, started, finished)]
        self.in_flight = {}     # path → count
        self.secrets = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                started = time.time()
                with receiver.lock:
                    receiver.in_flight[self.path] = receiver.in_flight.get(self.path, 0) + 1
                try:
                    time.sleep(RECEIVER_DELAY)
                    secret = receiver.secrets.get(self.path, "")
                    signed = self.headers.get("Souk-Signature", "")
                    ok = bool(secret) and cc_verify(signed, body, secret)
                    with receiver.lock:
                        receiver.deliveries.setdefault(self.path, []).append(
                            (self.headers.get("Souk-Event-Id", ""), body, ok, started, time.time()))
                    try:
                        self.send_response(200)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                    except OSError:
                        pass
                finally:
                    with receiver.lock:
                        receiver.in_flight[self.path] -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self, path):
        with self.lock:
            return list(self.deliveries.get(path, []))

    def busy(self, path):
        with self.lock:
            return self.in_flight.get(path, 0)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def cc_verify(header, body, secret, tolerance=300):
    import hmac
    parts = [p.strip().split("=", 1) for p in header.split(",") if "=" in p]
    stamp = next((v for k, v in parts if k == "t"), None)
    signatures = [v for k, v in parts if k == "v1"]
    if stamp is None or not signatures:
        return False
    expected = hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, s) for s in signatures) and abs(time.time() - int(stamp)) <= tolerance


# MARK: One database's kill rounds

class Round:
    def __init__(self):
        self.lock = threading.Lock()
        self.purchases = []
        self.licenses = []
        self.orders = []

    def add(self, kind, item):
        with self.lock:
            getattr(self, kind).append(item)


class Backend:
    def __init__(self, kind, work, souk_bin, chain, receiver, packages, pg_url=None):
        self.kind, self.work, self.souk_bin, self.chain, self.receiver, self.packages = kind, work, souk_bin, chain, receiver, packages
        self.data = os.path.join(work, f"data-{kind}")
        port = faultlib.free_port()
        self.env = dict(os.environ, SOUK_DATA_DIR=self.data, SOUK_PUBLIC_URL=f"http://127.0.0.1:{port}",
                        SOUK_LOG_LEVEL=os.environ.get("SOUK_LOG_LEVEL", "warning"),
                        SOUK_APPLE_ROOT_CERTIFICATES=os.path.join(work, "chain", "root.der"),
                        SOUK_WEBHOOK_RETRY_BASE_MS="200", SOUK_WEBHOOK_RETRY_MAX_MS="1000",
                        SOUK_PAYMENT_PROCESSOR="development")   # checkouts without money
        self.env.pop("SOUK_DATABASE_URL", None)
        if pg_url:
            self.env["SOUK_DATABASE_URL"] = pg_url
        self.db = Database(self.data, pg_url)
        self.server = Server(souk_bin, work, self.env, port, os.path.join(work, f"serve-{kind}.log"))
        self.base = self.server.base
        self.hook = f"/hook/{kind}"
        self.tokens = []
        self.counter = itertools.count()
        self.tx_base = 4_000_000_000_000_000 + random.randrange(10 ** 12) * 1000
        self.owned = set()           # (account index, app) bought and confirmed
        self.to_buy = [(a, app) for app, _, _ in PAID_APPS for a in range(ACCOUNTS)]
        random.shuffle(self.to_buy)
        self.all_purchases = []
        self.leftovers = []          # files killed imports left: (path, bytes, round)
        self.last_kill = 0.0
        self.import_seconds = 1.0
        self.versions = itertools.count(9200000001 if kind == "sqlite" else 9300000001)

    def souk(self, *args, ok=True):
        return souk(self.souk_bin, self.env, *args, ok=ok)

    def label(self, what):
        return f"{self.kind} {what}"

    # Setup

    def setup(self):
        started = time.time()
        if self.db.url:
            self.souk("migrate")
        self.souk("demo", "seed")
        path = os.path.join(self.work, "catalog.json")
        with open(path, "w") as handle:
            json.dump(catalog(), handle)
        self.souk("catalog", "apply", path)
        for index in range(ACCOUNTS):
            self.souk("accounts", "create", "--email", f"buyer{index}@fault.example", "--password", PASSWORD)
        for item, bundle, version in PAID_APPS:
            self.souk("apps", "create", "--apple-item-id", item, "--bundle-id", bundle, "--name", f"Fault paid {item}")
            folder = os.path.join(self.work, f"paid-{self.kind}-{item}")
            self.souk("packages", "make-sample", "--apple-item-id", item, "--apple-version-id", version, "--bundle-id", bundle,
                      "--short-version", "1.0", "--bundle-version", "1", "--min-os", "17.0", "--variant-size", "4096", "--out", folder)
            self.souk("packages", "import", folder)
            self.souk("apps", "set-price", "--apple-item-id", item, "--amount", "199", "--currency", "USD")
        self.souk("apps", "create", "--apple-item-id", BIG_APP, "--bundle-id", BIG_BUNDLE, "--name", "Fault big")
        secret = secrets.token_hex(24)
        self.receiver.secrets[self.hook] = secret
        self.souk("webhooks", "add", "--app", APP, "--url", self.receiver.url + self.hook, "--secret", secret)
        self.audit = BlobAudit(self.data, self.db)
        self.server.start()
        self.tokens = [cc.sign_in(self.base, f"buyer{index}@fault.example", PASSWORD) for index in range(ACCOUNTS)]
        self.account_ids = [self.db.scalar(f"SELECT id FROM accounts WHERE email = 'buyer{index}@fault.example'")
                            for index in range(ACCOUNTS)]
        log(f"{self.kind}: ready in {time.time() - started:.1f} s at {self.base}")

    # The workload

    def purchase(self, attempt):
        product_id, sku, apple_type, days, _ = PRODUCTS[attempt["kind"]]
        headers = {"Content-Type": "application/cloudevents+json", "Authorization": f"Bearer {self.tokens[attempt['account']]}"}
        return http("POST", f"{self.base}/commerce/{APP}/transactions", json.dumps(attempt["event"]).encode(), headers)

    def new_attempt(self):
        index = next(self.counter)
        kind = ("monthly", "book", "coins")[index % 3]
        product_id, sku, apple_type, days, _ = PRODUCTS[kind]
        txid = str(self.tx_base + index)
        jws = cc.signed(self.chain, sku, txid, apple_type, days=days)
        return {"account": index % ACCOUNTS, "kind": kind, "txid": txid, "jws": jws, "status": None, "payment": None,
                "event": cc.cloud_event(product_id, sku, jws, txid)}

    def purchaser(self, stop, results, cap):
        """New purchases until the server dies (or `cap`)."""
        for _ in range(cap):
            if stop.is_set():
                return
            attempt = self.new_attempt()
            results.add("purchases", attempt)
            try:
                status, _, body = self.purchase(attempt)
            except NoAnswer:
                attempt["status"] = "no answer"
                return
            attempt["status"] = status
            if status == 201:
                attempt["payment"] = json.loads(body)["data"]["id"]
            else:
                REPORT.check("intake-answer", False, self.label(f"purchase {attempt['txid']} answered {status} {body[:200]!r}"))
            time.sleep(0.06)

    def licenser(self, stop, results, cap, which):
        try:
            market = lc.Marketplace(self.base)
        except Exception as error:   # the server died before the certificates were read
            return
        for number in range(cap):
            if stop.is_set():
                return
            device = os.urandom(8).hex()
            account = (number + which) % ACCOUNTS
            app, version, token = ((NOTES, NOTES_LATEST, None) if (number + which) % 2 == 0
                                   else (STUDIO, STUDIO_LATEST, self.tokens[account]))
            entry = {"device": device, "app": app, "version": version, "account": account if token else None, "status": None, "id": None}
            results.add("licenses", entry)
            try:
                status, answer = market.license(device, {app: version}, token)
            except Exception:  # urllib's errors, a connection reset mid-answer: no answer
                entry["status"] = "no answer"
                return
            entry["status"] = status
            if status == 200 and isinstance(answer, dict):
                granted = market.licenses(answer["license"])["licenses"]
                entry["id"] = granted[0]["licenseId"] if granted else None
                REPORT.check("license-answer", bool(granted), self.label(f"license for {app} answered 200 without a license: {answer}"))
            else:
                REPORT.check("license-answer", False, self.label(f"license for {app} answered {status} {str(answer)[:200]}"))
            time.sleep(0.1)

    def buyer(self, stop, results, cap):
        for _ in range(cap):
            if stop.is_set() or not self.to_buy:
                return
            account, app = self.to_buy.pop()
            entry = {"account": account, "app": app, "status": None, "order": None}
            results.add("orders", entry)
            try:
                status, _, body = http("POST", f"{self.base}/api/v1/checkout", {"appleItemId": app},
                                       {"Authorization": f"Bearer {self.tokens[account]}"})
            except NoAnswer:
                entry["status"] = "no answer"
                return
            entry["status"] = status
            if status == 201:
                entry["order"] = json.loads(body)["orderId"]
            else:
                REPORT.check("checkout-answer", False, self.label(f"checkout of {app} answered {status} {body[:200]!r}"))
            time.sleep(0.4)

    def start_import(self, path):
        process = subprocess.Popen([self.souk_bin, "packages", "import", path], env=self.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        faultlib.track(self.work, process.pid)
        return process

    def end_import(self, process, kill_at, started):
        """Kills the import at `kill_at` seconds after `started` unless it ended before; (killed, output)."""
        while time.time() < started + kill_at and process.poll() is None:
            time.sleep(0.005)
        killed = process.poll() is None
        if killed:
            os.kill(process.pid, 9)
        output = process.communicate()[0]
        faultlib.untrack(self.work, process.pid)
        return killed, output

    # A round

    def kill_round(self, number):
        label = self.label(f"round {number}")
        results = Round()
        stop = threading.Event()
        version = str(next(self.versions))
        package = self.packages.make(version, as_zip=(number == 2))
        threads = [threading.Thread(target=self.purchaser, args=(stop, results, 100)) for _ in range(2)]
        threads += [threading.Thread(target=self.licenser, args=(stop, results, 200, which)) for which in range(2)]
        threads.append(threading.Thread(target=self.buyer, args=(stop, results, 2)))
        server_kill = random.uniform(1.0, 2.5)
        import_kill = random.uniform(0.05, 1.2 * self.import_seconds)
        started = time.time()
        for thread in threads:
            thread.start()
        importer = self.start_import(package)
        import_killed, import_output = self.end_import(importer, min(import_kill, server_kill), started)
        while time.time() < started + server_kill:
            time.sleep(0.005)
        # From that random point, the first moment a webhook delivery is in flight (1.5 s at most).
        deadline = time.time() + 1.5
        while not self.receiver.busy(self.hook) and time.time() < deadline:
            time.sleep(0.002)
        in_flight = self.receiver.busy(self.hook)
        self.server.kill9()
        self.last_kill = time.time()
        stop.set()
        for thread in threads:
            thread.join(30)
        answered = sum(1 for p in results.purchases if p["status"] == 201)
        log(f"{label}: souk killed at {server_kill:.2f} s ({len(results.purchases)} purchases, {answered} answered; "
            f"{sum(1 for l in results.licenses if l['status'] == 200)}/{len(results.licenses)} licenses; "
            f"{sum(1 for o in results.orders if o['status'] == 201)}/{len(results.orders)} checkouts; "
            f"{in_flight} webhook deliveries in flight); import {'killed' if import_killed else 'ended'} at "
            f"{min(import_kill, server_kill):.2f} s{'' if import_killed else ': ' + import_output.strip().splitlines()[0]}")
        left = staging_leftovers(self.data)
        restarted = time.time()
        self.server.start()
        log(f"{label}: started again in {time.time() - restarted:.1f} s")
        self.check_stale(left, label + ", after the next start")
        self.verify(results, label)
        self.verify_import(version, package, label)
        self.packages.remove(package)

    def check_stale(self, left, label):
        deadline = time.time() + 3   # the start's sweep runs beside the listener
        while True:
            still = [path for path in left if os.path.exists(path)]
            if not still or time.time() > deadline:
                break
            time.sleep(0.2)
        if left:
            self.leftovers += [(path, faultlib.size_of([path]), label) for path in left]
        REPORT.check("stale-staging", not still,
                     f"{label}: {len(still)} staging entries of a killed import remain ({faultlib.size_of(still) / 1e6:.0f} MB): "
                     f"{[os.path.relpath(p, self.data) for p in still][:4]}")

    # Checks after a restart

    def verify(self, results, label):
        check_invariants(self.db, label)
        self.unnamed(label)
        self.verify_purchases(results.purchases, label)
        self.verify_licenses(results.licenses, label)
        self.verify_orders(results.orders, label)

    def purchase_rows(self):
        """Claimed transaction id → [(payment id, status)] of the app's purchases, in one query."""
        rows = {}
        for txid, payment, status in self.db.rows(f"SELECT claimed_transaction_id, id, status FROM purchases WHERE app = '{APP}'"):
            rows.setdefault(txid, []).append((str(payment).lower(), status))
        return rows

    def verify_purchases(self, attempts, label):
        self.all_purchases += attempts
        recorded = self.purchase_rows()
        for attempt in attempts:
            rows = recorded.get(attempt["txid"], [])
            if attempt["status"] == 201:
                REPORT.check("lost-purchase", len(rows) == 1 and str(rows[0][0]).lower() == attempt["payment"] and rows[0][1] == "granted",
                             f"{label}: purchase {attempt['txid']} answered 201 ({attempt['payment']}) but the database has {rows}")
            else:
                REPORT.check("intake-atomic", len(rows) <= 1 and (not rows or rows[0][1] == "granted"),
                             f"{label}: unanswered purchase {attempt['txid']} left {rows}")
        # Every purchase posted again, as the app would after the crash: same event → same payment.
        for attempt in attempts:
            status, _, body = self.purchase(attempt)
            payment = json.loads(body)["data"]["id"] if status == 201 else None
            REPORT.check("intake-retry", status == 201 and (attempt["payment"] in (None, payment)),
                         f"{label}: purchase {attempt['txid']} posted again answered {status} {payment or body[:200]!r}, first {attempt['payment']}")
            attempt["payment"] = attempt["payment"] or payment
        # The same store transaction under a new event id (the app lost the first answer) → the same payment.
        for attempt in random.sample(attempts, min(4, len(attempts))):
            again = dict(attempt, event=dict(attempt["event"], id=str(uuid.uuid4())))
            status, _, body = self.purchase(again)
            payment = json.loads(body)["data"]["id"] if status == 201 else None
            REPORT.check("intake-retry", status == 201 and payment == attempt["payment"],
                         f"{label}: purchase {attempt['txid']} under a new event answered {status} {payment}, first {attempt['payment']}")
        recorded = self.purchase_rows()
        for attempt in attempts:
            rows = recorded.get(attempt["txid"], [])
            REPORT.check("intake-retry", len(rows) == 1, f"{label}: purchase {attempt['txid']} is {len(rows)} rows after its retries")
            entitlement = PRODUCTS[attempt["kind"]][4]
            if entitlement:
                status, _, _ = http("GET", f"{self.base}/commerce/{APP}/entitlement/{entitlement}",
                                    headers={"Authorization": f"Bearer {self.tokens[attempt['account']]}"})
                REPORT.check("lost-purchase", status == 200, f"{label}: purchase {attempt['txid']} does not entitle to {entitlement}: {status}")
        # A consumable is credited once per store transaction, however often it was posted.
        for account in range(ACCOUNTS):
            expected = sum(1 for a in self.all_purchases if a["kind"] == "coins" and a["account"] == account)
            status, _, body = http("GET", f"{self.base}/commerce/{APP}/balances", headers={"Authorization": f"Bearer {self.tokens[account]}"})
            balance = sum(b["balance"] for b in json.loads(body).get("balances", []) if b["productId"] == "reader.coins.100") if status == 200 else None
            REPORT.check("consumable-once", balance == expected, f"{label}: account {account} has {balance} coins for {expected} purchases")

    def verify_licenses(self, entries, label):
        market = lc.Marketplace(self.base)
        installed = {(str(account).lower(), str(item)): int(count) for account, item, count in
                     self.db.rows("SELECT account_id, apple_item_id, COUNT(*) FROM installs GROUP BY account_id, apple_item_id")}
        for entry in entries:
            token = self.tokens[entry["account"]] if entry["account"] is not None else None
            if entry["status"] == 200 and entry["id"]:
                status, answer = market.renew(entry["device"], [entry["id"]], token)
                ok = status == 200 and answer.get("ineligibleLicenses") == [] and \
                    [l["licenseId"] for l in market.licenses(answer["license"])["licenses"]] == [entry["id"]]
                REPORT.check("lost-license", ok, f"{label}: license {entry['id']} answered 200 does not renew: {status} {str(answer)[:200]}")
            status, answer = market.license(entry["device"], {entry["app"]: entry["version"]}, token)
            granted = market.licenses(answer["license"])["licenses"] if status == 200 else []
            REPORT.check("license-retry", status == 200 and len(granted) == 1 and (entry["id"] in (None, granted[0]["licenseId"])),
                         f"{label}: license of {entry['app']} asked again answered {status}, ids {[g['licenseId'] for g in granted]}, first {entry['id']}")
            if token and status == 200:
                installs = installed.get((str(self.account_ids[entry["account"]]).lower(), str(entry["app"])), 0)
                REPORT.check("lost-license", installs >= 1, f"{label}: a licensed account install of {entry['app']} has no install record")

    def verify_orders(self, entries, label):
        market = lc.Marketplace(self.base)
        versions = {item: version for item, _, version in PAID_APPS}
        for entry in entries:
            token = self.tokens[entry["account"]]
            if entry["status"] == 201:
                rows = self.db.rows(f"SELECT status FROM marketplace_orders WHERE id = '{entry['order']}'") if self.db.url else \
                    self.db.rows(f"SELECT status FROM marketplace_orders WHERE lower(id) = '{entry['order']}'")
                REPORT.check("lost-order", rows == [("paid",)], f"{label}: order {entry['order']} answered 201 is {rows}")
            else:
                status, _, body = http("POST", f"{self.base}/api/v1/checkout", {"appleItemId": entry["app"]}, {"Authorization": f"Bearer {token}"})
                ok = status == 201 or (status == 409 and b"already-owned" in body)
                REPORT.check("checkout-retry", ok, f"{label}: checkout of {entry['app']} retried answered {status} {body[:200]!r}")
            status, answer = market.license(os.urandom(8).hex(), {entry["app"]: versions[entry["app"]]}, token)
            name = "checkout-retry" if entry["status"] != 201 else "lost-order"
            if status != 200 and self.db.rows(f"SELECT id FROM marketplace_orders WHERE account_id = '{self.account_ids[entry['account']]}' "
                                              f"AND apple_item_id = {entry['app']} AND status = 'open' AND url IS NOT NULL"):
                name = "checkout-half-paid"   # the kill landed between attach and markPaid
            REPORT.check(name, status == 200, f"{label}: the buyer of {entry['app']} gets {status} for a license after the crash: {str(answer)[:200]}")
            if status == 200:
                self.owned.add((entry["account"], entry["app"]))

    def version_state(self, version):
        rows = self.db.rows(f"SELECT COUNT(f.id) FROM app_versions v LEFT JOIN package_files f ON f.version_id = v.id "
                            f"WHERE v.apple_version_id = {version} GROUP BY v.id")
        return None if not rows else int(rows[0][0])

    def verify_import(self, version, package, label):
        files = self.version_state(version)
        REPORT.check("import-atomic", files in (None, 4), f"{label}: version {version} has {files} of its 4 file rows")
        run = self.souk("packages", "import", package, ok=False)
        REPORT.check("import-retry", run.returncode == 0 and ("Imported" in run.stdout or "Already imported" in run.stdout),
                     f"{label}: importing {version} again after the kill: exit {run.returncode} {(run.stdout + run.stderr)[-300:]}")
        REPORT.check("import-atomic", self.version_state(version) == 4, f"{label}: version {version} after the retry has {self.version_state(version)} file rows")
        time.sleep(1.2)   # the server's package lookups are held for SOUK_CATALOG_REFRESH_MS
        with open(os.path.join(package, "manifest.json")) if os.path.isdir(package) else zipfile.ZipFile(package).open("manifest.json") as handle:
            manifest = json.load(handle)
        for variant in manifest["variants"]:
            status, headers, _ = http("HEAD", f"{self.base}/packages/{BIG_APP}/{version}/{variant['assetPath']}")
            REPORT.check("import-served", status == 200 and headers.get("Content-Length") == str(VARIANT_BYTES),
                         f"{label}: {variant['assetPath']} of {version} answered {status} {headers.get('Content-Length')}")
        self.unnamed(label + " after the retried import")

    def unnamed(self, label):
        """Blobs a killed or failed import renamed into blobs/sha256 without its rows: they stay a day
        (a sweep cannot tell them from an import about to write its rows), then the sweep of
        unreferenced blobs removes them (checked in `age_and_sweep`)."""
        orphans, size = self.audit.check(label)
        if orphans:
            log(f"{label}: {len(orphans)} blobs ({size / 1e6:.0f} MB) no row names yet; the sweep removes them once a day old")
        return orphans

    def age_and_sweep(self, label):
        """Every blob made two days old, then `souk maintenance cleanup`: each blob no row names goes,
        each one a row names stays (the audit's invariant checks)."""
        before = self.unnamed(label + ", before the sweep")
        self.audit.age(2 * 86_400)
        cleanup = self.souk("maintenance", "cleanup", ok=False)
        orphans, size = self.audit.check(label + ", after the sweep")
        REPORT.check("orphan-blobs", not orphans and cleanup.returncode == 0,
                     f"{label}: after two days and `souk maintenance cleanup` ({cleanup.stdout.strip().replace(chr(10), '; ') or cleanup.stderr.strip()}) "
                     f"{len(orphans)} of {len(before)} blobs no row names remain ({size / 1e6:.0f} MB): {orphans[:3]}")
        return cleanup

    # Imports alone

    def measure_import(self):
        version = str(next(self.versions))
        package = self.packages.make(version)
        started = time.time()
        run = self.souk("packages", "import", package)
        self.import_seconds = time.time() - started
        log(f"{self.kind}: a 128 MB import takes {self.import_seconds:.2f} s ({run.stdout.splitlines()[0]})")
        self.packages.remove(package)

    def import_kills(self):
        """More kills of imports alone, at spread-out points of the import (early, middle, late)."""
        for slot in range(EXTRA_IMPORT_KILLS):
            version = str(next(self.versions))
            as_zip = slot == 1
            package = self.packages.make(version, as_zip=as_zip)
            low = 0.05 + slot * self.import_seconds / EXTRA_IMPORT_KILLS
            kill_at = random.uniform(low, low + self.import_seconds / EXTRA_IMPORT_KILLS)
            started = time.time()
            killed, output = self.end_import(self.start_import(package), kill_at, started)
            left = staging_leftovers(self.data)
            label = self.label(f"import killed at {kill_at:.2f} s ({'zip' if as_zip else 'folder'})")
            log(f"{label}: {'killed' if killed else 'had ended'}; {len(left)} staging entries now (this and earlier kills), "
                f"{faultlib.size_of(left) / 1e6:.0f} MB")
            if left:
                self.leftovers += [(path, faultlib.size_of([path]), label) for path in left]
            self.verify_import(version, package, label)
            self.packages.remove(package)

    def cleanup_during_import(self):
        """`souk maintenance cleanup` while an import stages its blobs must leave that import alone."""
        version = str(next(self.versions))
        package = self.packages.make(version, as_zip=True)
        started = time.time()
        importer = self.start_import(package)
        while time.time() < started + 0.25 * self.import_seconds and not staging_leftovers(self.data):
            time.sleep(0.01)
        during = staging_leftovers(self.data)
        cleanup = self.souk("maintenance", "cleanup", ok=False)
        output = importer.communicate()[0]
        faultlib.untrack(self.work, importer.pid)
        label = self.label("cleanup during a live import")
        REPORT.check("live-import", importer.returncode == 0 and "Imported" in output,
                     f"{label}: the import ({len(during)} staging entries when cleanup ran; cleanup said "
                     f"{(cleanup.stdout + cleanup.stderr).strip()[-200:]!r}) ended {importer.returncode}: {output[-300:]}")
        REPORT.check("live-import", self.version_state(version) == 4, f"{label}: version {version} has {self.version_state(version)} file rows")
        self.packages.remove(package)

    def injected_commit_failure(self):
        """The version's transaction fails after its blobs were renamed into blobs/sha256 (a trigger
        refuses the file rows, as a full disk or a dropped connection would at that moment)."""
        label = self.label("version transaction failing after the blob rename")
        version = str(next(self.versions))
        folder = os.path.join(self.work, f"small-{version}")
        self.souk("packages", "make-sample", "--apple-item-id", BIG_APP, "--apple-version-id", version, "--bundle-id", BIG_BUNDLE,
                  "--short-version", "2.0", "--bundle-version", "2", "--min-os", "17.0", "--variant-size", str(3 << 20), "--out", folder)
        if self.db.url:
            self.db.execute("CREATE FUNCTION fault_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                            "RAISE EXCEPTION 'fault-check: injected failure'; END $$; "
                            "CREATE TRIGGER fault_refuse BEFORE INSERT ON package_files FOR EACH ROW EXECUTE FUNCTION fault_refuse();")
        else:
            self.db.execute("CREATE TRIGGER fault_refuse BEFORE INSERT ON package_files BEGIN "
                            "SELECT RAISE(ABORT, 'fault-check: injected failure'); END;")
        try:
            run = self.souk("packages", "import", folder, ok=False)
        finally:
            self.db.execute("DROP TRIGGER fault_refuse ON package_files; DROP FUNCTION fault_refuse();" if self.db.url
                            else "DROP TRIGGER fault_refuse;")
        REPORT.check("injected", run.returncode != 0, f"{label}: the import did not fail: {run.stdout}")
        REPORT.check("import-atomic", self.version_state(version) is None, f"{label}: version {version} is half there")
        orphans = self.unnamed(label)
        REPORT.check("injected", bool(orphans), f"{label}: the failed import left no blob to sweep; souk said {(run.stdout + run.stderr).strip()[-160:]!r}")
        # Young, they stay: the sweep cannot tell them from the blobs of an import about to write its rows.
        cleanup = self.souk("maintenance", "cleanup", ok=False)
        kept = [sha for sha in orphans if os.path.exists(faultlib.blob_path(self.data, sha))]
        REPORT.check("blob-grace", len(kept) == len(orphans), f"{label}: `souk maintenance cleanup` removed {len(orphans) - len(kept)} "
                     f"blobs less than a day old ({cleanup.stdout.strip().replace(chr(10), '; ')})")
        self.age_and_sweep(label)
        run = self.souk("packages", "import", folder, ok=False)
        REPORT.check("import-retry", run.returncode == 0 and self.version_state(version) == 4,
                     f"{label}: importing again without the fault: {run.returncode} {run.stdout[-200:]}")
        shutil.rmtree(folder, ignore_errors=True)

    def half_paid_checkout(self):
        """The state a kill between CheckoutService's attach (url and processor ref written) and
        markPaid leaves, written with SQL on a fresh order; then the buyer asks again."""
        label = self.label("checkout killed between attach and markPaid (state written with SQL)")
        if not self.to_buy:
            raise Fatal("no account is left that has not bought a paid app (fewer checkouts per round)")
        account, app = self.to_buy.pop()
        token = self.tokens[account]
        order_id = str(uuid.uuid4())
        url = f"{self.base}/apps/{app}?order={order_id}"
        at = time.time()
        when = f"to_timestamp({at})" if self.db.url else f"{at}"
        stored_id = order_id if self.db.url else order_id.upper()
        self.db.execute(f"INSERT INTO marketplace_orders (id, account_id, apple_item_id, currency, amount, environment, processor, "
                        f"processor_ref, idempotency_key, status, url, created_at, updated_at) VALUES ('{stored_id}', "
                        f"'{self.account_ids[account]}', {app}, 'USD', 199, 'Production', 'development', 'dev_{order_id}', "
                        f"'{uuid.uuid4()}', 'open', '{url}', {when}, {when})")
        status, _, body = http("POST", f"{self.base}/api/v1/checkout", {"appleItemId": app}, {"Authorization": f"Bearer {token}"})
        answered = json.loads(body).get("orderId") if status == 201 else None
        rows = self.db.rows(f"SELECT status FROM marketplace_orders WHERE id = '{stored_id}'")
        market = lc.Marketplace(self.base)
        license_status, _ = market.license(os.urandom(8).hex(), {app: dict((i, v) for i, _, v in PAID_APPS)[app]}, token)
        REPORT.check("checkout-half-paid", rows == [("paid",)] and license_status == 200,
                     f"{label}: the retried checkout answered {status} (order {answered}), the order is {rows}, "
                     f"and a license for the app answers {license_status}")
        if rows != [("paid",)]:
            # Leave no half-paid order for the final invariants of this run: this state was made on purpose.
            self.db.execute(f"UPDATE marketplace_orders SET status = 'cancelled' WHERE id = '{stored_id}'")

    # The end

    def finish(self):
        label = self.label("at the end")
        wait_until = self.last_kill + WEBHOOK_LEASE + 30
        events = {}
        while True:
            events = {str(row[0]).lower(): row[1] for row in self.db.rows(f"SELECT id, type FROM commerce_events WHERE app = '{APP}'")}
            got = {event for event, *_ in self.receiver.received(self.hook)}
            pending = self.db.rows("SELECT COUNT(*) FROM webhook_deliveries WHERE status <> 'delivered'")
            if set(events) <= got and int(pending[0][0]) == 0:
                break
            if time.time() > wait_until:
                break
            time.sleep(0.5)
        received = self.receiver.received(self.hook)
        got = {}
        for event, body, ok, *_ in received:
            got.setdefault(event, []).append((body, ok))
        missing = sorted(set(events) - set(got))
        REPORT.check("webhook-lost", not missing, f"{label}: {len(missing)} of {len(events)} committed events never reached the receiver "
                     f"(waited until {WEBHOOK_LEASE + 30} s after the last kill): {missing[:4]}")
        phantom = sorted(set(got) - set(events))
        REPORT.check("webhook-phantom", not phantom, f"{label}: events delivered that the database does not hold: {phantom[:4]}")
        differing = [event for event, copies in got.items() if len({json.loads(b)["id"] for b, _ in copies} | {event}) != 1
                     or len({b for b, _ in copies}) != 1]
        REPORT.check("webhook-same-event", not differing, f"{label}: redeliveries that differ from the first copy: {differing[:4]}")
        unsigned = [event for event, copies in got.items() if not all(ok for _, ok in copies)]
        REPORT.check("webhook-signature", not unsigned, f"{label}: deliveries whose Souk-Signature does not verify: {unsigned[:4]}")
        duplicates = sum(len(copies) - 1 for copies in got.values())
        undelivered = self.db.rows("SELECT status, COUNT(*) FROM webhook_deliveries WHERE status <> 'delivered' GROUP BY status")
        REPORT.check("webhook-lost", not undelivered, f"{label}: deliveries not delivered: {undelivered}")
        REPORT.note(f"{self.kind}: {len(events)} events, {len(received)} deliveries received, {duplicates} duplicates "
                    f"(delivered before a kill, not yet recorded: sent again after the {WEBHOOK_LEASE} s lease)")
        # The files killed imports left: the issue wants them gone at the next start or by `souk maintenance cleanup`;
        # the blobs they renamed into place without rows go once a day old.
        cleanup = self.age_and_sweep(label)
        still = [(path, size, where) for path, size, where in self.leftovers if os.path.exists(path)]
        REPORT.check("stale-staging", not still,
                     f"{label}: after `souk maintenance cleanup` ({cleanup.stdout.strip().replace(chr(10), '; ') or cleanup.stderr.strip()}) "
                     f"{len(still)} of {len(self.leftovers)} entries killed imports left remain, "
                     f"{sum(s for _, s, _ in still) / 1e6:.0f} MB")
        self.server.stop()
        # With no process left, a sweep forgets every owner's lock file (StaleFiles/WorkOwner).
        self.souk("maintenance", "cleanup", ok=False)
        locks = [os.path.join(folder, name) for folder in (os.path.join(self.data, "blobs", "tmp", ".owners"), os.path.join(self.data, "tmp", ".owners"))
                 if os.path.isdir(folder) for name in os.listdir(folder)]
        REPORT.check("owner-locks", not locks, f"{label}: lock files of processes that are gone remain after a sweep: {locks[:4]}")
        check_invariants(self.db, label)
        orphans, size = self.audit.check(label)
        REPORT.check("orphan-blobs", not orphans, f"{label}: {len(orphans)} blobs ({size / 1e6:.0f} MB) on disk that no row names")


# MARK: The run

def run(work, souk_bin):
    started = time.time()
    cc.prepare(os.path.join(work, "chain"))
    chain = cc.load_chain(os.path.join(work, "chain"))
    receiver = Receiver()
    packages = Packages(os.path.join(work, "packages"))
    backends = [Backend("sqlite", work, souk_bin, chain, receiver, packages)]
    if os.environ.get("FAULT_PG_URL"):
        backends.append(Backend("postgres", work, souk_bin, chain, receiver, packages, os.environ["FAULT_PG_URL"]))
    try:
        for backend in backends:
            backend.setup()
            backend.measure_import()
            for number in range(1, ROUNDS + 1):
                backend.kill_round(number)
            backend.import_kills()
            backend.cleanup_during_import()
            backend.injected_commit_failure()
            backend.half_paid_checkout()
            log(f"{backend.kind}: kill rounds done at {time.time() - started:.0f} s")
        full_disk(work, souk_bin)
        log(f"full disk done at {time.time() - started:.0f} s")
        import outage_load
        outage_load.run(work, souk_bin, chain)
        log(f"outage done at {time.time() - started:.0f} s")
        for backend in backends:
            backend.finish()
    except Fatal as error:
        REPORT.check("setup", False, str(error))
        for backend in backends:
            if backend.server.running:
                log(f"--- {backend.kind} server log\n{backend.server.tail(30)}")
    finally:
        receiver.close()
    log(f"done in {time.time() - started:.0f} s")
    return REPORT.summary()


def full_disk(work, souk_bin):
    """Runs full_disk.py in a private mount namespace (FAULT_UNSHARE, set by fault-check.sh) so its
    tmpfs cannot outlive it, and merges its report."""
    prefix = os.environ.get("FAULT_UNSHARE", "").split()
    summary = os.path.join(work, "full-disk.json")
    run = subprocess.run(prefix + [sys.executable, os.path.join(faultlib.HERE, "full_disk.py"), work, souk_bin, summary],
                         env=os.environ, timeout=300)
    if not os.path.exists(summary):
        REPORT.check("full-disk", False, f"full_disk.py ended {run.returncode} without a report")
        return
    with open(summary) as handle:
        outcome = json.load(handle)
    REPORT.passed += outcome["passed"]
    for name, count in outcome.get("counts", {}).items():
        REPORT.counts[name] = REPORT.counts.get(name, 0) + count
    REPORT.known += [tuple(k) for k in outcome["known"]]
    REPORT.failures += [tuple(f) for f in outcome["failures"]]
    REPORT.notes += outcome["notes"]


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"] and len(sys.argv) == 4:
        sys.exit(0 if run(sys.argv[2], sys.argv[3]) else 1)
    print(__doc__, file=sys.stderr)
    sys.exit(2)
