"""PostgreSQL restarted under load (part of scripts/fault-check.sh, called by fault_check.py): a
`souk serve` on its own PostgreSQL cluster (port 54349, /tmp/souk-fault-postgres; the shared test
cluster is never touched), seven clients in a loop — an anonymous update check (answered from
memory), an update check of an account app with a bearer token, entitlement checks of an owner and
of a non-owner, the storefront's home and an app page, license requests for a public app and for
a paid app its buyer paid for, Apple purchases posted to the commerce API, and /health — then a
fast restart of the cluster, then an immediate stop (as a crash would), four seconds down and a
start.

Every answer must be the right verdict or a 503 problem (`application/problem+json`, `Retry-After`);
never no answer, never 401/402/404/500 where the verdict is another, never a wrong body; /health
answers 503 `{"status":"unavailable","database":"unreachable"}` while the database is down; after
the start every client is answered correctly again within RECOVERY_SECONDS, without restarting Souk;
every purchase answered 503 (or not at all) and posted again afterwards is recorded once.
A request that gets no answer within TIMEOUT seconds is reported as `pg-stop-hang`."""
import base64, json, os, subprocess, threading, time

import faultlib
from faultlib import REPORT, Database, Fatal, NoAnswer, Server, http, log, souk

PG_PORT = "54349"
PG_DIR = "/tmp/souk-fault-postgres"
RECOVERY_SECONDS = 10
DOWN_SECONDS = 4
TIMEOUT = 4


class Cluster:
    """The throwaway cluster, through scripts/postgres.sh (and pg_ctl for an immediate stop)."""

    def __init__(self):
        self.env = dict(os.environ, SOUK_TEST_PG_PORT=PG_PORT, SOUK_TEST_PG_DIR=PG_DIR)
        self.script = os.path.join(faultlib.ROOT, "scripts", "postgres.sh")
        self.url = f"postgres://postgres@127.0.0.1:{PG_PORT}/postgres?sslmode=disable"

    def start(self):
        run = subprocess.run([self.script, "start"], env=self.env, capture_output=True, text=True, timeout=120)
        return run.returncode == 0, run.stderr.strip()

    def stop(self, mode="fast"):
        if mode == "fast":
            subprocess.run([self.script, "stop"], env=self.env, capture_output=True, timeout=120)
            return
        bindir = sorted((d for d in (f"/usr/lib/postgresql/{v}/bin" for v in os.listdir("/usr/lib/postgresql"))
                         if os.path.exists(d + "/pg_ctl")), key=lambda d: int(d.split("/")[4]))[-1]
        command = [f"{bindir}/pg_ctl", "-D", f"{PG_DIR}/data", "-m", mode, "stop"]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--"] + command
        subprocess.run(command, capture_output=True, timeout=120)


def problem_503(status, headers, body):
    if status != 503 or not headers.get("Retry-After"):
        return False
    if not headers.get("Content-Type", "").startswith("application/problem+json"):
        return False
    try:
        return json.loads(body).get("status") == 503
    except ValueError:
        return False


class Load:
    def __init__(self):
        self.lock = threading.Lock()
        self.outcomes = []   # (time, client, "ok" | "503" | "bad: …")
        self.stop = threading.Event()

    def record(self, client, outcome):
        with self.lock:
            self.outcomes.append((time.time(), client, outcome))

    def loop(self, client, call):
        while not self.stop.is_set():
            started = time.time()   # outcomes are placed at their request's start
            try:
                outcome = call()
            except NoAnswer as error:
                outcome = f"bad: no answer ({error})"
            except Exception as error:  # noqa: BLE001 — a harness error must show, not kill the thread
                outcome = f"bad: {error!r}"
            with self.lock:
                self.outcomes.append((started, client, outcome))
            time.sleep(0.02)


def run(work, souk_bin, chain):
    import fault_check as fc
    cc, lc = fc.cc, fc.lc
    cluster = Cluster()
    ok, why = cluster.start()
    if not ok:
        if os.environ.get("CI") == "true":
            REPORT.check("outage", False, f"no PostgreSQL for the outage check: {why}")
        else:
            REPORT.note(f"⚠️  PostgreSQL restart under load SKIPPED: no PostgreSQL here ({why[:200]}); apt-get install postgresql")
        return
    server = None
    try:
        subprocess.run(["psql", cluster.url, "-qc", "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public"], check=True,
                       capture_output=True, timeout=60)
        port = faultlib.free_port()
        data = os.path.join(work, "data-outage")
        env = dict(os.environ, SOUK_DATA_DIR=data, SOUK_DATABASE_URL=cluster.url, SOUK_PUBLIC_URL=f"http://127.0.0.1:{port}",
                   SOUK_LOG_LEVEL=os.environ.get("SOUK_LOG_LEVEL", "warning"),
                   SOUK_APPLE_ROOT_CERTIFICATES=os.path.join(work, "chain", "root.der"),
                   SOUK_PAYMENT_PROCESSOR="development")   # checkouts without money
        for args in (["migrate"], ["demo", "seed"], ["catalog", "apply", os.path.join(work, "catalog.json")],
                     ["accounts", "create", "--email", "owner@fault.example", "--password", fc.PASSWORD],
                     ["accounts", "create", "--email", "other@fault.example", "--password", fc.PASSWORD]):
            souk(souk_bin, env, *args)
        db = Database(data, cluster.url)
        sketch = "6446000004"
        sketch_version = db.scalar("SELECT MAX(v.apple_version_id) FROM app_versions v JOIN apps a ON a.id = v.app_id "
                                   f"WHERE a.apple_item_id = {sketch}")
        server = Server(souk_bin, work, env, port, os.path.join(work, "serve-outage.log"))
        server.start()
        base = server.base
        owner = cc.sign_in(base, "owner@fault.example", fc.PASSWORD)
        other = cc.sign_in(base, "other@fault.example", fc.PASSWORD)
        product_id, sku, apple_type, days, _ = fc.PRODUCTS["monthly"]
        jws = cc.signed(chain, sku, "5000000000000001", apple_type, days=days)
        status, _, body = http("POST", f"{base}/commerce/{fc.APP}/transactions", json.dumps(cc.cloud_event(product_id, sku, jws, "5000000000000001")).encode(),
                               {"Content-Type": "application/cloudevents+json", "Authorization": f"Bearer {owner}"})
        if status != 201:
            raise Fatal(f"outage setup: the owner's purchase answered {status} {body[:200]!r}")
        status, _, body = http("POST", f"{base}/api/v1/checkout", {"appleItemId": sketch}, {"Authorization": f"Bearer {owner}"})
        if status != 201:
            raise Fatal(f"outage setup: the owner's checkout of Souk Sketch answered {status} {body[:200]!r}")
        market = lc.Marketplace(base)
        assets = {fc.NOTES: market.asset(fc.NOTES, fc.NOTES_LATEST), sketch: market.asset(sketch, sketch_version)}

        def license_call(app, version, token):
            request, key = market.seal(json.dumps({"requestId": 1, "deviceId": os.urandom(8).hex(), "action": "create",
                                                   "appleItemIds": [app]}).encode())
            body = {"licenseRequest": request, "licenseKey": key, "appsById": {app: {"appleVersionId": version, "assetPublicId": assets[app]}}}
            status, headers, answer = http("POST", market.config["dynamicLicenseURL"], body,
                                           {"Authorization": f"Bearer {token}"} if token else None, timeout=TIMEOUT)
            if status == 200:
                granted = market.licenses(json.loads(answer)["license"])["licenses"]
                return "ok" if [g["appleItemId"] for g in granted] == [app] else f"bad: 200 without the license: {granted}"
            return "503" if problem_503(status, headers, answer) else f"bad: {status} {answer[:160]!r}"

        def updates(item, old, token=None, os_version="17.4"):
            def call():
                headers = {"Content-Type": "application/json"}
                if token:
                    headers["Authorization"] = f"Bearer {token}"
                status, answer_headers, answer = http("POST", f"{base}/marketplace-kit/v1/updates",
                                                      {"apps": [{"appleItemId": item, "appleVersionId": old}], "platform": "iOS", "osVersion": os_version},
                                                      headers, timeout=TIMEOUT)
                if status == 200:
                    return "ok" if b"installVerificationToken" in answer else f"bad: 200 without the update: {answer[:160]!r}"
                return "503" if problem_503(status, answer_headers, answer) else f"bad: {status} {answer[:160]!r}"
            return call

        def entitlement(token, verdict):
            def call():
                status, headers, answer = http("GET", f"{base}/commerce/{fc.APP}/entitlement/premium", headers={"Authorization": f"Bearer {token}"},
                                               timeout=TIMEOUT)
                if status == verdict:
                    if status == 200 and json.loads(answer) != {"id": "premium", "type": "entitlement"}:
                        return f"bad: 200 with {answer[:120]!r}"
                    return "ok"
                return "503" if problem_503(status, headers, answer) else f"bad: {status} (verdict {verdict}) {answer[:160]!r}"
            return call

        def page(path):
            def call():
                status, headers, answer = http("GET", base + path, timeout=TIMEOUT)
                if status == 200:
                    return "ok"
                return "503" if status == 503 and headers.get("Retry-After") else f"bad: {status} {answer[:120]!r}"
            return call

        def health():
            status, _, answer = http("GET", f"{base}/health", timeout=TIMEOUT)
            document = json.loads(answer)
            if status == 200 and document == {"status": "ok", "database": "ok"}:
                return "ok"
            if status == 503 and document == {"status": "unavailable", "database": "unreachable"}:
                return "503"
            return f"bad: {status} {answer[:120]!r}"

        purchases = {}   # transaction id → the first answer
        numbers = iter(range(5000000000000002, 5000000000100000))
        purchase_lock = threading.Lock()

        def post_purchase(txid, jws):
            event = cc.cloud_event(product_id, sku, jws, txid)
            return http("POST", f"{base}/commerce/{fc.APP}/transactions", json.dumps(event).encode(),
                        {"Content-Type": "application/cloudevents+json", "Authorization": f"Bearer {owner}"}, timeout=TIMEOUT)

        def purchase():
            with purchase_lock:
                txid = str(next(numbers))
            jws = cc.signed(chain, sku, txid, apple_type, days=days)
            purchases[txid] = (jws, "no answer")
            status, headers, answer = post_purchase(txid, jws)
            purchases[txid] = (jws, status)
            if status == 201:
                return "ok"
            return "503" if problem_503(status, headers, answer) else f"bad: {status} {answer[:160]!r}"

        clients = {
            "updates (anonymous)": updates(fc.NOTES, "8000000101"),
            "updates (account app, bearer)": updates(fc.STUDIO, "8000000301", owner, "18.0"),
            "entitlement (owner)": entitlement(owner, 200),
            "entitlement (not bought: 401 is the verdict)": entitlement(other, 401),
            "storefront home": page("/"),
            "app page": page(f"/apps/{fc.NOTES}"),
            "license (public app)": lambda: license_call(fc.NOTES, fc.NOTES_LATEST, None),
            "license (paid app, its buyer)": lambda: license_call(sketch, sketch_version, owner),
            "purchase intake": purchase,
            "health": health,
        }
        load = Load()
        threads = [threading.Thread(target=load.loop, args=(name, call), daemon=True) for name, call in clients.items()]
        marks = {"start": time.time()}
        for thread in threads:
            thread.start()
        time.sleep(2)
        marks["restart"] = time.time()
        cluster.stop("fast")
        marks["restart-down"] = time.time()
        cluster.start()
        marks["restart-up"] = time.time()
        time.sleep(3)
        marks["crash"] = time.time()
        cluster.stop("immediate")
        marks["crash-down"] = time.time()
        time.sleep(DOWN_SECONDS)
        marks["crash-start"] = time.time()
        cluster.start()
        marks["crash-up"] = time.time()
        time.sleep(6)
        load.stop.set()
        for thread in threads:
            thread.join(30)
        with open(os.path.join(work, "outage-outcomes.json"), "w") as handle:
            json.dump({"marks": marks, "outcomes": load.outcomes}, handle)
        hung = judge(load.outcomes, marks, clients)
        # Every purchase that got no 201 is posted again: recorded once, as the app would retry it.
        retried = 0
        for txid, (jws, first) in list(purchases.items()):
            if first != 201:
                retried += 1
                try:
                    status, _, answer = post_purchase(txid, jws)
                except NoAnswer as error:
                    # A write of this store transaction that never ended holds PurchaseStore's turn for its key.
                    REPORT.check("pg-stop-hang" if first == "no answer" else "outage-intake", False,
                                 f"purchase {txid} (first {first}) posted again after the outage got no answer either: {error}")
                    continue
                REPORT.check("outage-intake", status == 201, f"purchase {txid} (first {first}) posted again after the outage: {status} {answer[:160]!r}")
        rows = db.rows(f"SELECT claimed_transaction_id, COUNT(*) FROM purchases WHERE app = '{fc.APP}' GROUP BY claimed_transaction_id HAVING COUNT(*) > 1")
        REPORT.check("outage-intake", not rows, f"purchases recorded twice after the outage: {rows[:4]}")
        answered = [txid for txid, (_, first) in purchases.items() if first == 201]
        if answered:
            found = int(db.scalar("SELECT COUNT(*) FROM purchases WHERE app = '%s' AND status = 'granted' AND claimed_transaction_id IN (%s)"
                                  % (fc.APP, ", ".join(f"'{t}'" for t in answered))))
            REPORT.check("outage-intake", found == len(answered), f"{len(answered) - found} purchases answered 201 are not recorded")
        REPORT.note(f"outage: {len(purchases)} purchases posted, {len(answered)} answered 201 at once, {retried} posted again")
        faultlib.check_invariants(db, "outage")
        server.stop(check="pg-stop-hang" if hung else "graceful-stop")
    except (Fatal, subprocess.CalledProcessError) as error:
        REPORT.check("outage", False, f"outage setup: {error}")
    finally:
        if server is not None and server.running:
            server.stop()
        cluster.stop("fast")


def judge(outcomes, marks, clients):
    baseline = [o for o in outcomes if o[0] < marks["restart"] - 0.5]
    REPORT.check("outage-baseline", baseline and all(o[2] == "ok" for o in baseline),
                 f"before any fault: {[o for o in baseline if o[2] != 'ok'][:4]}")
    bad = [o for o in outcomes if o[2].startswith("bad") and not o[2].startswith("bad: no answer")]
    REPORT.check("outage-verdict", not bad, f"{len(bad)} answers neither the verdict nor a 503 problem: "
                 f"{[(round(t - marks['start'], 2), c, w[:160]) for t, c, w in bad[:6]]}")
    hung = [o for o in outcomes if o[2].startswith("bad: no answer")]
    REPORT.check("pg-stop-hang", not hung, f"{len(hung)} requests got no answer within {TIMEOUT} s: "
                 f"{[(round(t - marks['start'], 2), c, w[:140]) for t, c, w in hung[:4]]} "
                 f"(PostgreSQL stopped at {marks['restart'] - marks['start']:.2f} s and {marks['crash'] - marks['start']:.2f} s)")
    down = [o for o in outcomes if marks["crash-down"] + 1.5 < o[0] < marks["crash-start"]]
    health = [o for o in down if o[1] == "health"]
    REPORT.check("outage-health", health and all(o[2] == "503" for o in health),
                 f"/health while PostgreSQL was down: {[o[2] for o in health][:6]}")
    writes = [o for o in down if o[1] in ("license (public app)", "license (paid app, its buyer)", "purchase intake")]
    REPORT.check("outage-real", any(o[2] == "503" for o in writes), f"license requests and purchases while down: {[o[2] for o in writes][:6]}")
    lines = []
    for name in clients:
        mine = [o for o in outcomes if o[1] == name]
        counts = {}
        for _, _, outcome in mine:
            key = "bad" if outcome.startswith("bad") else outcome
            counts[key] = counts.get(key, 0) + 1
        for fault, up in (("restart", "restart-up"), ("crash", "crash-up")):
            # Requests that start just before the next fault may meet it: the window stops short of it.
            window_end = marks["crash"] - 0.5 if fault == "restart" else float("inf")
            after = [o for o in mine if marks[up] <= o[0] < window_end]
            failing = [o for o in after if o[2] != "ok"]
            recovered = (max(o[0] for o in failing) - marks[up]) if failing else 0.0
            if not after and any(o[2].startswith("bad: no answer") and o[0] < marks[up] for o in mine):
                continue   # the client waited on a request that never got an answer (pg-stop-hang, reported above)
            settled = bool(after) and after[-1][2] == "ok" and recovered <= RECOVERY_SECONDS
            REPORT.check("outage-recovery", settled, f"{name}: after the {fault} still failing {recovered:.1f} s after PostgreSQL was back "
                         f"(last: {after[-1][2][:120] if after else 'no request'})")
            counts[f"{fault} recovery s"] = round(recovered, 1)
        lines.append(f"  {name}: {counts}")
    REPORT.note("outage under load (ok = the verdict; recovery = seconds after PostgreSQL answered again):\n" + "\n".join(lines))
    log(f"outage: restart took {marks['restart-up'] - marks['restart']:.1f} s, crash down {marks['crash-start'] - marks['crash-down']:.1f} s")
    return bool(hung)
