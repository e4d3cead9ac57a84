"""Shared helpers of the fault checks (Tests/faults/, run by scripts/fault-check.sh): HTTP that tells
"no answer" from an answer, `souk serve` processes that can be killed with SIGKILL and started again
on the same data, SQL on either database from outside Souk, the blob store on disk, and a report
that keeps going after a failed check so that one run lists every finding."""
import fcntl, hashlib, json, os, re, signal, socket, sqlite3, subprocess, sys, time, urllib.error, urllib.request

import http.client as httpclient

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
NAME = "fault-check"


def log(message):
    print(f"{NAME}: {message}", flush=True)


class Fatal(Exception):
    """A failure that stops the run (the setup broke, not a finding)."""


# MARK: The report

class Report:
    """Every check's outcome. A check named in KNOWN fails with a ⚠️ and the finding it belongs to
    (docs/operations.md "Faults", "Known findings"), without failing the run unless
    FAULT_CHECK_STRICT=1. Remove a name once Souk is fixed, so that the check guards the fix."""

    KNOWN = {}

    def __init__(self):
        self.failures = []
        self.known = []
        self.passed = 0
        self.notes = []
        self.counts = {}

    def check(self, name, ok, detail):
        self.counts[name] = self.counts.get(name, 0) + 1
        if ok:
            self.passed += 1
            return True
        if name in self.KNOWN and os.environ.get("FAULT_CHECK_STRICT") != "1":
            self.known.append((name, detail))
            log(f"⚠️  KNOWN FINDING [{name}] {detail} ({self.KNOWN[name]})")
        else:
            self.failures.append((name, detail))
            log(f"FAIL [{name}] {detail}")
        return False

    def note(self, text):
        self.notes.append(text)
        log(text)

    def summary(self):
        log("checks made: " + ", ".join(f"{name} {count}" for name, count in sorted(self.counts.items())))
        log(f"{self.passed} checks passed, {len(self.known)} known findings, {len(self.failures)} failures")
        for name, detail in self.known:
            log(f"  known [{name}] {detail[:300]}")
        for name, detail in self.failures:
            log(f"  FAILED [{name}] {detail[:300]}")
        return not self.failures


REPORT = Report()


# MARK: HTTP

class NoAnswer(Exception):
    """The connection failed or closed before a whole answer came (the server is down or died)."""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def http(method, url, body=None, headers=None, timeout=20):
    """(status, headers, body bytes) of an answer, whatever its status; NoAnswer when none came."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None and not request.has_header("Content-type"):
        request.add_header("Content-Type", "application/json")
    try:
        with OPENER.open(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        try:
            return error.code, error.headers, error.read()
        except (OSError, httpclient.HTTPException) as inner:
            raise NoAnswer(f"{method} {url}: {inner!r}") from inner
    except (OSError, httpclient.HTTPException) as error:
        raise NoAnswer(f"{method} {url}: {error!r}") from error


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# MARK: Processes

def track(work, pid):
    """Records a process in WORK/.pids, which serve-lib.sh's cleanup stops."""
    with open(os.path.join(work, ".pids"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(f"{pid}\n")


def untrack(work, pid):
    """Forgets a process that has been waited for, so that cleanup never signals a reused pid."""
    path = os.path.join(work, ".pids")
    with open(path, "r+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        lines = [line for line in handle.read().split() if line != str(pid)]
        handle.seek(0)
        handle.truncate()
        handle.write("".join(f"{line}\n" for line in lines))


def souk(bin_path, env, *args, ok=True, timeout=180):
    run = subprocess.run([bin_path, *args], capture_output=True, text=True, timeout=timeout, env=env)
    if ok and run.returncode != 0:
        raise Fatal(f"souk {' '.join(args)} exited {run.returncode}: {(run.stdout + run.stderr).strip()[-600:]}")
    return run


class Server:
    """One `souk serve` on a fixed port (so its public URL survives restarts), its output appended
    to one log."""

    def __init__(self, souk_bin, work, env, port, log_path):
        self.souk_bin, self.work, self.env, self.port, self.log_path = souk_bin, work, env, port, log_path
        self.base = f"http://127.0.0.1:{port}"
        self.process = None
        self.starts = 0

    def start(self, seconds=40):
        offset = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        output = open(self.log_path, "a")
        output.write(f"--- start {self.starts + 1} at {time.strftime('%H:%M:%S')}\n")
        output.flush()
        self.process = subprocess.Popen([self.souk_bin, "serve", "--port", str(self.port)], env=self.env, cwd=self.work,
                                        stdout=output, stderr=subprocess.STDOUT)
        output.close()
        track(self.work, self.process.pid)
        self.starts += 1
        deadline = time.time() + seconds
        while time.time() < deadline:
            with open(self.log_path) as handle:
                handle.seek(offset)
                if "Souk is listening on" in handle.read():
                    return time.time()
            if self.process.poll() is not None:
                self.forget()
                raise Fatal(f"souk serve exited with {self.process.returncode} while starting; log: {self.tail()}")
            time.sleep(0.05)
        raise Fatal(f"souk serve did not start within {seconds} s; log: {self.tail()}")

    def kill9(self):
        """SIGKILL, as a crash or the OOM killer would: nothing runs after it."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.forget()

    def stop(self, seconds=15, check="graceful-stop"):
        """SIGTERM and a graceful exit within `seconds` (else a failure named `check`, and SIGKILL)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=seconds)
            graceful = True
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            graceful = False
        self.forget()
        REPORT.check(check, graceful, f"{self.base} did not stop within {seconds} s of SIGTERM (SIGKILL then); its log ends: {self.tail(8)}")

    def forget(self):
        untrack(self.work, self.process.pid)

    @property
    def running(self):
        return self.process is not None and self.process.poll() is None

    def tail(self, lines=15):
        try:
            with open(self.log_path, errors="replace") as handle:
                return "".join(handle.readlines()[-lines:])
        except OSError:
            return ""


# MARK: The database, from outside

class Database:
    """Read (and, for injected faults, write) Souk's database without Souk: SQLite through Python's
    sqlite3 module, PostgreSQL through psql."""

    def __init__(self, data_dir, url=None):
        self.data_dir, self.url = data_dir, url
        self.kind = "postgres" if url else "sqlite"

    def rows(self, sql):
        if self.url:
            run = subprocess.run(["psql", self.url, "-AtX", "-v", "ON_ERROR_STOP=1", "-F", "\x1f", "-c", sql],
                                 capture_output=True, text=True, timeout=60)
            if run.returncode != 0:
                raise Fatal(f"psql: {run.stderr.strip()} in {sql}")
            return [tuple(None if value == "" else value for value in line.split("\x1f"))
                    for line in run.stdout.splitlines() if line != ""]
        connection = sqlite3.connect(os.path.join(self.data_dir, "souk.sqlite"), timeout=30)
        try:
            return [tuple(row) for row in connection.execute(sql).fetchall()]
        finally:
            connection.close()

    def execute(self, sql):
        if self.url:
            self.rows(sql)
            return
        connection = sqlite3.connect(os.path.join(self.data_dir, "souk.sqlite"), timeout=30)
        try:
            connection.executescript(sql)
            connection.commit()
        finally:
            connection.close()

    def scalar(self, sql):
        rows = self.rows(sql)
        return rows[0][0] if rows else None


# Every row a crash may not leave half-written, as (what is wrong, a query listing the offenders).
# Dialect-neutral SQL; dates are not compared (SQLite stores them as numbers, PostgreSQL as timestamps).
INVARIANTS = [
    ("a version without its manifest.json and signature rows",
     "SELECT v.apple_version_id FROM app_versions v WHERE (SELECT COUNT(*) FROM package_files f WHERE f.version_id = v.id "
     "AND f.path IN ('manifest.json', 'signature')) <> 2"),
    ("a version without a variant row",
     "SELECT v.apple_version_id FROM app_versions v WHERE NOT EXISTS (SELECT 1 FROM package_files f WHERE f.version_id = v.id "
     "AND f.public_id IS NOT NULL)"),
    ("a file row of no version",
     "SELECT f.id FROM package_files f LEFT JOIN app_versions v ON v.id = f.version_id WHERE v.id IS NULL"),
    ("a CloudEvent linked to no purchase",
     "SELECT e.event_id FROM purchase_events e LEFT JOIN purchases p ON p.id = e.payment_id WHERE p.id IS NULL"),
    ("a granted purchase without its store facts",
     "SELECT id FROM purchases WHERE status = 'granted' AND (transaction_id IS NULL OR original_transaction_id IS NULL "
     "OR purchase_date IS NULL OR environment IS NULL)"),
    ("a pending purchase without its receipt", "SELECT id FROM purchases WHERE status = 'pending' AND receipt IS NULL"),
    ("a granted purchase without a lifecycle event (its webhook would never go)",
     "SELECT p.id FROM purchases p WHERE p.status = 'granted' AND NOT EXISTS (SELECT 1 FROM commerce_events e WHERE e.payment_id = p.id)"),
    ("a claimed store transaction recorded twice",
     "SELECT app, store, claimed_transaction_id FROM purchases GROUP BY app, store, claimed_transaction_id HAVING COUNT(*) > 1"),
    ("a consumable balance that is not the sum of its granted, unrefunded purchases",
     "SELECT b.account_id, b.product_id, b.balance FROM consumable_balances b WHERE b.balance <> (SELECT COALESCE(SUM(p.quantity), 0) "
     "FROM purchases p WHERE p.account_id = b.account_id AND p.app = b.app AND p.product_id = b.product_id "
     "AND p.environment = b.environment AND p.status = 'granted' AND p.revoked_at IS NULL)"),
    ("a consumable purchase without a balance",
     "SELECT p.id FROM purchases p WHERE p.product_type = 'consumable' AND p.status = 'granted' AND NOT EXISTS "
     "(SELECT 1 FROM consumable_balances b WHERE b.account_id = p.account_id AND b.app = p.app AND b.product_id = p.product_id)"),
    ("a commerce change numbered past commerce_revision",
     "SELECT MAX(revision) FROM commerce_changes HAVING MAX(revision) > (SELECT value FROM commerce_revision WHERE id = 1)"),
    ("a catalog change numbered past catalog_revision",
     "SELECT MAX(revision) FROM catalog_changes HAVING MAX(revision) > (SELECT value FROM catalog_revision WHERE id = 1)"),
    ("a paid order without what was paid",
     "SELECT id FROM marketplace_orders WHERE status = 'paid' AND (paid_at IS NULL OR amount_paid IS NULL OR processor_ref IS NULL)"),
    ("an order in an unknown state",
     "SELECT id FROM marketplace_orders WHERE status NOT IN ('open', 'paid', 'refunded', 'failed', 'cancelled')"),
    ("a delivered webhook without its time", "SELECT event_id FROM webhook_deliveries WHERE status = 'delivered' AND delivered_at IS NULL"),
    ("a webhook delivery in an unknown state",
     "SELECT event_id FROM webhook_deliveries WHERE status NOT IN ('pending', 'delivered', 'failed')"),
    ("a webhook delivery of no event",
     "SELECT d.event_id FROM webhook_deliveries d LEFT JOIN commerce_events e ON e.id = d.event_id WHERE e.id IS NULL"),
    ("a license of a version not in the catalog",
     "SELECT l.license_id FROM licenses l WHERE NOT EXISTS (SELECT 1 FROM app_versions v WHERE v.apple_version_id = l.apple_version_id)"),
    ("two unrevoked licenses of one device, app, version and account",
     "SELECT device, apple_item_id, apple_version_id FROM licenses WHERE revoked_at IS NULL "
     "GROUP BY device, apple_item_id, apple_version_id, account_id HAVING COUNT(*) > 1"),
    ("two installs of one account, app and device",
     "SELECT account_id, apple_item_id, client_id FROM installs GROUP BY account_id, apple_item_id, client_id HAVING COUNT(*) > 1"),
]


def check_invariants(db, label):
    """Runs INVARIANTS (and SQLite's own integrity and foreign-key checks); one REPORT check each."""
    for what, sql in INVARIANTS:
        offenders = db.rows(sql)
        REPORT.check("invariant", not offenders, f"{label}: {what}: {offenders[:5]}")
    # The state a crash between CheckoutService's attach and markPaid leaves (see Report.KNOWN).
    half_paid = db.rows("SELECT id FROM marketplace_orders WHERE processor = 'development' AND status = 'open' AND url IS NOT NULL")
    REPORT.check("checkout-half-paid", not half_paid,
                 f"{label}: development orders attached but never paid: {half_paid[:5]}")
    if db.kind == "sqlite":
        integrity = db.rows("PRAGMA integrity_check")
        REPORT.check("invariant", integrity == [("ok",)], f"{label}: SQLite integrity_check: {integrity[:5]}")
        foreign = db.rows("PRAGMA foreign_key_check")
        REPORT.check("invariant", not foreign, f"{label}: SQLite foreign_key_check: {foreign[:5]}")


# MARK: The blob store on disk

HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


def blob_path(data_dir, sha):
    return os.path.join(data_dir, "blobs", "sha256", sha[:2], sha)


def blob_files(data_dir):
    found = {}
    root = os.path.join(data_dir, "blobs", "sha256")
    for folder, _, names in os.walk(root):
        for name in names:
            found[name] = os.path.getsize(os.path.join(folder, name))
    return found


def referenced_blobs(db):
    """Every blob a row names: package files, hosted content, icons and media (with their resized variants)."""
    named = {}
    for sha, size in db.rows("SELECT blob_sha256, size FROM package_files"):
        named[sha] = int(size)
    for sha, size in db.rows("SELECT sha256, size FROM hosted_content"):
        named[sha] = int(size)
    for icon, media in db.rows("SELECT icon_sha256, media FROM apps"):
        for sha in ([icon] if icon else []) + HEX64.findall(media or ""):
            named.setdefault(sha, None)
    return named


def staging_leftovers(data_dir):
    """What interrupted work left: staged blobs and the work folder's import-/content-/upload-/demo-/asc- entries."""
    entries = []
    staging = os.path.join(data_dir, "blobs", "tmp")
    work = os.path.join(data_dir, "tmp")
    # Dot entries are the sweeper's own (`.owners/`, the lock files of live processes).
    if os.path.isdir(staging):
        entries += [os.path.join(staging, name) for name in os.listdir(staging) if not name.startswith(".")]
    if os.path.isdir(work):
        entries += [os.path.join(work, name) for name in os.listdir(work)
                    if name.startswith(("import-", "content-", "upload-", "demo-", "asc-"))]
    return sorted(entries)


def size_of(paths):
    total = 0
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in os.walk(path):
                total += sum(os.path.getsize(os.path.join(folder, name)) for name in names if os.path.exists(os.path.join(folder, name)))
        elif os.path.exists(path):
            total += os.path.getsize(path)
    return total


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class BlobAudit:
    """Rows against files: every named blob exists with its size (and, once, its digest), and every
    file is named by a row — new unnamed files since `baseline` are orphans."""

    def __init__(self, data_dir, db):
        self.data_dir, self.db = data_dir, db
        self.baseline = set(blob_files(data_dir))
        self.verified = set()

    def check(self, label):
        files = blob_files(self.data_dir)
        named = referenced_blobs(self.db)
        missing = [sha for sha in named if sha not in files]
        REPORT.check("invariant", not missing, f"{label}: rows name blobs that are not on disk: {missing[:5]}")
        wrong = [(sha, files[sha], size) for sha, size in named.items() if sha in files and size is not None and files[sha] != size]
        REPORT.check("invariant", not wrong, f"{label}: blobs whose size is not their row's: {wrong[:5]}")
        for sha in sorted(set(files) - self.baseline - self.verified):
            actual = sha256_file(blob_path(self.data_dir, sha))
            REPORT.check("invariant", actual == sha, f"{label}: blob {sha} holds bytes with digest {actual}")
            self.verified.add(sha)
        orphans = sorted(set(files) - set(named) - self.baseline)
        return orphans, sum(files[sha] for sha in orphans)

    def age(self, seconds):
        """Sets every blob's modification time `seconds` back, as if that long had passed."""
        then = time.time() - seconds
        for sha in blob_files(self.data_dir):
            os.utime(blob_path(self.data_dir, sha), (then, then))
