#!/usr/bin/env python3
"""Several Souk processes behind nginx, checked from outside against `scripts/cluster.sh`:
nginx in front of two `souk serve` processes on one PostgreSQL database and one data folder.

- nginx: both processes take requests, `/metrics` and the X-Accel location are closed, a body over
  nginx's limit is a 413 problem, the client address reaches Souk (the sign-in throttle counts a
  client by its own address, not nginx's, and a forged X-Forwarded-For does not get around it);
- shared sessions: a website session cookie made by process 1 works at process 2 and a sign-out at
  process 2 ends it at process 1; an authorization code issued by process 1 is redeemed at process
  2, once only (its replay at process 1 revokes the tokens, seen by both);
- a purchase through nginx (development processor): owned at once at both processes;
- a catalog change made with the CLI is seen by both processes within a second;
- background jobs run once: every webhook event delivered exactly once (one failing on purpose
  is retried exactly once), a sandbox membership renewed exactly six times in 31 sandbox minutes;
- X-Accel downloads when the processes run with SOUK_DOWNLOADS_VIA=nginx: each process answers
  X-Accel-Redirect with an empty body; through nginx the whole file, a range, If-Range with Souk's
  ETag (and a stale one), Souk's 304, the same ETag and Last-Modified as Souk's own answer, and a
  hosted-content zip with its Content-Disposition.

    cluster_check.py NGINX_URL SOUK1_URL SOUK2_URL SOUK_BIN WORK

The operator commands run with the caller's environment (SOUK_DATABASE_URL, SOUK_DATA_DIR and
SOUK_PUBLIC_URL of the cluster). Run by scripts/e2e-cluster.sh.
"""
import base64, hashlib, hmac, html.parser, http.client, http.server, json, os, secrets, subprocess, sys, threading, time
import urllib.parse

NAME = "cluster-check"
NOTES, WEATHER, STUDIO, SKETCH = "6446000001", "6446000002", "6446000003", "6446000004"   # `souk demo seed`
LATEST = {NOTES: "8000000102", WEATHER: "8000000202", STUDIO: "8000000302", SKETCH: "8000000402"}
STUDIO_BUNDLE = "org.souk.demo.studio"
PASSWORD = "cluster check password"


def fail(message):
    print(f"{NAME}: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def eventually(check, message, seconds=15.0, every=0.2):
    deadline = time.time() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.time() > deadline:
            fail(message)
        time.sleep(every)


# MARK: HTTP

class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        return self.headers.get(name.lower())

    def all(self, name):
        return [v for k, v in self.header_list if k.lower() == name.lower()]

    def json(self):
        return json.loads(self.body)

    def cookies(self):
        """name → value of every Set-Cookie."""
        found = {}
        for value in self.all("Set-Cookie"):
            name, _, rest = value.partition("=")
            found[name.strip()] = rest.split(";", 1)[0]
        return found


def request(method, url, body=None, headers=None, source=None, timeout=30):
    """One request on a fresh connection (from `source` when given, e.g. 127.0.0.2); never follows redirects."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout,
                                            source_address=(source, 0) if source else None)
    headers = dict(headers or {})
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    elif isinstance(body, str):
        body = body.encode()
    try:
        connection.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        answer.header_list = response.getheaders()
        return answer
    finally:
        connection.close()


def form_post(url, fields, cookies, source=None):
    return request("POST", url, urllib.parse.urlencode(fields), {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie_header(cookies)}, source=source)


def cookie_header(cookies):
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


class Forms(html.parser.HTMLParser):
    """Every form of a page: action → hidden fields."""
    def __init__(self, page):
        super().__init__()
        self.forms, self.current = {}, None
        self.feed(page.decode() if isinstance(page, bytes) else page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.current = attrs.get("action") or ""
            self.forms.setdefault(self.current, {})
        elif tag == "input" and self.current is not None and attrs.get("type") == "hidden" and attrs.get("name"):
            self.forms[self.current][attrs["name"]] = attrs.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None


def souk(souk_bin, *args, stdin=None):
    run = subprocess.run([souk_bin, *args], capture_output=True, text=True, timeout=120, input=stdin)
    expect(run.returncode == 0, f"souk {' '.join(args)} exited {run.returncode}: {run.stderr.strip()[-400:]}")
    return run.stdout


def new_account(souk_bin, kind, sandbox=False):
    email = f"{kind}-{secrets.token_hex(4)}@cluster.example"
    souk(souk_bin, "accounts", "create", "--email", email, "--password", PASSWORD, *(["--sandbox"] if sandbox else []))
    return email


def pkce():
    verifier = secrets.token_hex(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorization_code(base, email, client_id, challenge):
    """The device's sign-in page at `base`: authorize → form → app-distribution-oauth:?code=…"""
    state = secrets.token_hex(8)
    query = urllib.parse.urlencode({"client_id": client_id, "response_type": "code", "redirect_uri": "app-distribution-oauth://",
                                    "code_challenge": challenge, "code_challenge_method": "S256", "state": state})
    page = request("GET", f"{base}/oauth/authorize?{query}")
    expect(page.status == 200, f"authorize page at {base}: {page.status}")
    forms = Forms(page.body)
    action = next((a for a in forms.forms if "authorize" in a), None)
    expect(action is not None, f"no sign-in form on the authorize page: {list(forms.forms)}")
    answer = form_post(urllib.parse.urljoin(f"{base}/oauth/authorize", action),
                       dict(forms.forms[action], email=email, password=PASSWORD), page.cookies())
    location = answer.header("Location") or ""
    expect(answer.status in (302, 303) and location.startswith("app-distribution-oauth:"), f"sign-in at {base}: {answer.status} {location}")
    got = dict(urllib.parse.parse_qsl(location.split("?", 1)[1]))
    expect(got.get("state") == state, f"state came back as {got.get('state')}")
    return got["code"]


def redeem(base, code, verifier, client_id):
    return request("POST", f"{base}/oauth/token", urllib.parse.urlencode({
        "grant_type": "authorization_code", "code": code, "code_verifier": verifier, "client_id": client_id}),
        {"Content-Type": "application/x-www-form-urlencoded"})


def access_token(base, email):
    verifier, challenge = pkce()
    client_id = "cluster-" + secrets.token_hex(4)
    answer = redeem(base, authorization_code(base, email, client_id, challenge), verifier, client_id)
    expect(answer.status == 200, f"token at {base}: {answer.status} {answer.body[:200]!r}")
    return answer.json()["access_token"]


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def metric_total(base):
    """All of souk_http_requests_total of one process."""
    text = request("GET", f"{base}/metrics").body.decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("souk_http_requests_total{"))


# MARK: The checks

def proxy(nginx, processes):
    before = [metric_total(p) for p in processes]
    for _ in range(40):
        expect(request("GET", f"{nginx}/health").status == 200, "health through nginx")
    after = [metric_total(p) for p in processes]
    served = [a - b for a, b in zip(after, before)]
    # Each process's own /metrics request counts once too; both must have served a share of the 40.
    expect(all(s >= 5 for s in served), f"nginx does not spread requests over both processes: {served}")
    expect(request("GET", f"{nginx}/metrics").status == 403, "/metrics through nginx is not refused")
    sha = "0" * 64
    answer = request("GET", f"{nginx}/_souk_blobs/sha256/00/{sha}")
    expect(answer.status == 404, f"the X-Accel location answered a client directly: {answer.status}")
    answer = request("POST", f"{nginx}/api/v1/checkout", b"{" + b" " * (3 << 20) + b"}", {"Content-Type": "application/json"})
    expect(answer.status == 413 and (answer.header("Content-Type") or "").startswith("application/problem+json")
           and answer.json()["status"] == 413, f"a 3 MiB body: {answer.status} {answer.header('Content-Type')} {answer.body[:200]!r}")
    # nginx refuses TRACE itself (a bare 405, no Allow); the config hands it to Souk, which knows the path's methods.
    for method, path, allow in (("TRACE", "/health", "GET, HEAD"), ("DELETE", "/oauth/token", "POST")):
        answer = request(method, f"{nginx}{path}")
        expect(answer.status == 405 and answer.header("Allow") == allow
               and (answer.header("Content-Type") or "").startswith("application/problem+json"),
               f"{method} {path} through nginx: {answer.status} Allow={answer.header('Allow')!r} {answer.body[:120]!r}")
    print(f"cluster: nginx spreads requests over both processes ({served[0]:.0f} and {served[1]:.0f} of 40),"
          " /metrics and the X-Accel location closed, 413 as a problem, 405 with Allow (TRACE included)")


def client_addresses(nginx, souk_bin):
    """Sign-in attempts are counted per client address (20 per 15 minutes): behind nginx that must be the
    client's, not nginx's, and a client cannot choose it by writing X-Forwarded-For itself."""
    def attempt(source, forged):
        page = request("GET", f"{nginx}/signin", source=source)
        fields = dict(Forms(page.body).forms.get("/signin", {}), email=f"nobody-{secrets.token_hex(4)}@cluster.example", password="wrong")
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie_header(page.cookies()),
                   "X-Forwarded-For": forged}
        return request("POST", f"{nginx}/signin", urllib.parse.urlencode(fields), headers, source=source).status

    started = time.time()
    statuses = [attempt("127.0.0.2", f"198.51.100.{i}") for i in range(20)]
    expect(statuses == [401] * 20, f"20 wrong passwords from 127.0.0.2: {statuses}")
    status = attempt("127.0.0.2", "198.51.100.99")
    expect(status == 429, f"the 21st attempt from 127.0.0.2 (with yet another forged X-Forwarded-For) answered {status}, not 429")
    status = attempt("127.0.0.3", "127.0.0.2")
    expect(status == 401, f"another client (127.0.0.3) was throttled with 127.0.0.2: {status}")
    print(f"cluster: sign-in throttled per client address behind nginx, forged X-Forwarded-For ignored ({time.time() - started:.1f} s)")


def web_session(nginx, one, two, souk_bin):
    email = new_account(souk_bin, "web")
    page = request("GET", f"{one}/signin")
    fields = dict(Forms(page.body).forms["/signin"], email=email, password=PASSWORD)
    answer = form_post(f"{one}/signin", fields, page.cookies())
    session = answer.cookies().get("souk_session")
    expect(answer.status in (302, 303) and session, f"website sign-in at process 1: {answer.status} {answer.cookies()}")
    cookies = {"souk_session": session}
    account = request("GET", f"{two}/account", headers={"Cookie": cookie_header(cookies)})
    expect(account.status == 200 and email.encode() in account.body, f"process 2 does not know process 1's session: {account.status}")
    # Signing out at process 2 ends the session at process 1 too.
    signout = Forms(account.body).forms.get("/signout")
    expect(signout is not None, f"no sign-out form on the account page: {list(Forms(account.body).forms)}")
    answer = form_post(f"{two}/signout", signout, cookies)
    expect(answer.status in (302, 303), f"sign-out at process 2: {answer.status}")
    account = request("GET", f"{one}/account", headers={"Cookie": cookie_header(cookies)})
    expect(account.status in (302, 303) and "/signin" in (account.header("Location") or ""),
           f"process 1 still accepts a session ended at process 2: {account.status}")
    print("cluster: a website session made at process 1 works at process 2; signed out at 2, gone at 1")


def oauth_code(nginx, one, two, souk_bin):
    email = new_account(souk_bin, "device")
    verifier, challenge = pkce()
    client_id = "cluster-" + secrets.token_hex(4)
    code = authorization_code(one, email, client_id, challenge)
    answer = redeem(two, code, verifier, client_id)
    expect(answer.status == 200, f"process 2 refused process 1's code: {answer.status} {answer.body[:200]!r}")
    tokens = answer.json()
    for base in (one, two, nginx):
        me = request("GET", f"{base}/api/v1/account", headers=bearer(tokens["access_token"]))
        expect(me.status == 200 and me.json().get("email") == email, f"the access token at {base}: {me.status} {me.body[:200]!r}")
    # The code works once, whichever process sees it again; the replay revokes what it gave.
    replay = redeem(one, code, verifier, client_id)
    expect(replay.status == 400 and replay.json().get("error") == "invalid_grant", f"a replayed code at process 1: {replay.status} {replay.body[:200]!r}")
    for base in (one, two):
        eventually(lambda: request("GET", f"{base}/api/v1/account", headers=bearer(tokens["access_token"])).status == 403,
                   f"the tokens of a replayed code still work at {base}", seconds=5)
    # A refresh at process 1 of tokens issued by process 2 (a fresh sign-in).
    code = authorization_code(two, email, client_id, challenge)
    tokens = redeem(two, code, verifier, client_id).json()
    answer = request("POST", f"{one}/oauth/token", urllib.parse.urlencode({
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id}),
        {"Content-Type": "application/x-www-form-urlencoded"})
    expect(answer.status == 200 and answer.json().get("access_token"), f"refresh at process 1: {answer.status} {answer.body[:200]!r}")
    print("cluster: a code issued by process 1 redeemed at process 2 (once: its replay at 1 revokes, seen by both); refresh across processes")


def purchase(nginx, one, two, souk_bin):
    email = new_account(souk_bin, "buyer")
    token = access_token(nginx, email)
    restore = {"apps": [{"appleItemId": SKETCH, "appleVersionId": LATEST[SKETCH]}], "platform": "iOS", "osVersion": "18.0"}
    answer = request("POST", f"{nginx}/marketplace-kit/v1/restore", restore, bearer(token))
    expect(answer.status == 402, f"restore of an app not bought yet: {answer.status} {answer.body[:200]!r}")
    answer = request("POST", f"{nginx}/api/v1/checkout", {"appleItemId": SKETCH}, bearer(token))
    expect(answer.status == 201 and answer.json().get("orderId"), f"checkout through nginx: {answer.status} {answer.body[:300]!r}")
    order = answer.json()["orderId"]
    for base in (one, two):
        answer = request("POST", f"{base}/marketplace-kit/v1/restore", restore, bearer(token))
        expect(answer.status == 200 and [r["appleItemId"] for r in answer.json().get("restores", [])] == [SKETCH],
               f"the bought app is not restored at {base}: {answer.status} {answer.body[:300]!r}")
        again = request("POST", f"{base}/api/v1/checkout", {"appleItemId": SKETCH}, bearer(token))
        expect(again.status == 409, f"buying it again at {base}: {again.status}")
    bought = [p for p in request("GET", f"{two}/api/v1/purchases", headers=bearer(token)).json() if p.get("appleItemId") == SKETCH]
    expect(len(bought) == 1, f"one order for the app, listed by process 2: {bought}")
    print(f"cluster: a purchase through nginx (development processor, order {order[:8]}…) is owned at both processes")
    return email, token


def catalog_change(one, two, souk_bin):
    """A takedown and a reinstatement with the CLI: both processes see each within a second."""
    path = f"/packages/{NOTES}/{LATEST[NOTES]}/manifest.json"

    def seen(expected):
        started = time.monotonic()
        pending = {one, two}
        while pending:
            for base in list(pending):
                if request("GET", base + path).status == expected:
                    pending.discard(base)
            if time.monotonic() - started > 5:
                fail(f"{sorted(pending)} did not answer {expected} within 5 s")
            time.sleep(0.02)
        return time.monotonic() - started

    expect(all(request("GET", b + path).status == 200 for b in (one, two)), "the app is not listed before the takedown")
    times = []
    for _ in range(2):
        souk(souk_bin, "apps", "takedown", "--apple-item-id", NOTES, "--reason", "cluster check")
        times.append(seen(404))
        souk(souk_bin, "apps", "reinstate", "--apple-item-id", NOTES)
        times.append(seen(200))
    # SOUK_CATALOG_REFRESH_MS is 1000: a process looks for changes at most a second after its last look.
    expect(max(times) <= 1.2, f"a catalog change took {max(times):.2f} s to reach both processes: {[round(t, 2) for t in times]}")
    print(f"cluster: takedowns and reinstatements seen by both processes in {', '.join(f'{t:.2f}' for t in times)} s")


class Receiver(http.server.ThreadingHTTPServer):
    """The developer's webhook endpoint: records every attempt; the first attempt of the first event fails."""
    def __init__(self, secret):
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        self.secret, self.attempts, self.lock = secret, [], threading.Lock()


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        signature = self.headers.get("Souk-Signature", "")
        parts = dict(p.split("=", 1) for p in signature.split(",") if "=" in p)
        expected = hmac.new(self.server.secret.encode(), parts.get("t", "").encode() + b"." + body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, parts.get("v1", ""))
        event = self.headers.get("Souk-Event-Id", "")
        with self.server.lock:
            first_ever = not self.server.attempts
            self.server.attempts.append({"event": event, "valid": valid, "type": json.loads(body).get("type"), "failed": first_ever})
        self.send_response(500 if first_ever else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def webhooks(souk_bin):
    secret = secrets.token_hex(32)
    receiver = Receiver(secret)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{receiver.server_address[1]}/souk-events"
        souk(souk_bin, "webhooks", "add", "--app", STUDIO_BUNDLE, "--url", url, "--secret", "-", stdin=secret + "\n")
        people = [new_account(souk_bin, "promo") for _ in range(3)]
        for email in people:
            souk(souk_bin, "entitlements", "grant", "--account", email, "--app", STUDIO_BUNDLE, "--entitlement", "pro", "--reason", "cluster")
        souk(souk_bin, "entitlements", "revoke", "--account", people[0], "--app", STUDIO_BUNDLE, "--entitlement", "pro")

        def delivered():
            with receiver.lock:
                ok = {a["event"] for a in receiver.attempts if not a["failed"]}
            return len(ok) == 4 and ok

        events = eventually(delivered, "4 webhook events (3 grants, 1 revocation) were not all delivered", seconds=30)
        time.sleep(3)   # time for a second delivery by the other process, if one were coming
        with receiver.lock:
            attempts = list(receiver.attempts)
        per_event = {e: sum(1 for a in attempts if a["event"] == e) for e in events}
        failed = attempts[0]["event"]
        expect(all(a["valid"] for a in attempts), "a webhook signature did not verify")
        expect(sorted(a["type"] for a in attempts if not a["failed"]) == ["grant", "grant", "grant", "grant_revoked"],
               f"event types: {[a['type'] for a in attempts]}")
        expect(all(n == (2 if e == failed else 1) for e, n in per_event.items()),
               f"attempts per event (the first failed once on purpose): {per_event}")
        print(f"cluster: 4 webhook events delivered once each by two processes ({len(attempts)} attempts, one retry after a 500)")
    finally:
        receiver.shutdown()


def renewals(nginx, one, souk_bin):
    """A sandbox membership renews every five sandbox minutes: 31 minutes make six renewals, never twelve."""
    email = new_account(souk_bin, "tester", sandbox=True)
    token = access_token(nginx, email)
    answer = request("POST", f"{nginx}/api/v1/checkout", {"productId": "member.monthly"}, bearer(token))
    expect(answer.status == 201, f"a sandbox membership: {answer.status} {answer.body[:300]!r}")

    def count():
        listed = request("GET", f"{one}/api/v1/purchases", headers=bearer(token)).json()
        return len([p for p in listed if p.get("kind") == "renewal" and p.get("productId") == "member.monthly"])

    souk(souk_bin, "sandbox", "advance", "--minutes", "31")
    eventually(lambda: count() >= 6, f"six renewals after 31 sandbox minutes (saw {count()})", seconds=30)
    time.sleep(3)
    expect(count() == 6, f"renewals after 31 sandbox minutes: {count()}, not 6")
    print("cluster: a sandbox membership renewed exactly 6 times in 31 sandbox minutes with two processes")


def x_accel(nginx, one, two, souk_bin, buyer_email, buyer_token, work):
    path = f"/packages/{NOTES}/{LATEST[NOTES]}"
    manifest = request("GET", f"{nginx}{path}/manifest.json").json()
    variant = manifest["variants"][0]["assetPath"]
    url = f"{path}/{variant}"
    direct = request("GET", one + url)
    accel = direct.header("X-Accel-Redirect")
    if not accel:
        return False
    expect(direct.status == 200 and direct.body == b"", f"process 1's X-Accel answer: {direct.status}, {len(direct.body)} bytes")
    expect(accel.startswith("/_souk_blobs/sha256/"), f"X-Accel-Redirect: {accel}")
    souk_etag, souk_modified = direct.header("ETag"), direct.header("Last-Modified")

    whole = request("GET", nginx + url)
    sha = hashlib.sha256(whole.body).hexdigest()
    expect(whole.status == 200 and f'"{sha}"' == souk_etag, f"the whole file through nginx: {whole.status}, sha {sha[:12]}…, Souk's ETag {souk_etag}")
    expect(int(whole.header("Content-Length")) == len(whole.body) == manifest["variants"][0]["variantDetails"]["compressedSize"],
           "Content-Length and the manifest's size")
    expect(whole.header("ETag") == souk_etag and whole.header("Last-Modified") == souk_modified,
           f"nginx's validators {whole.header('ETag')} {whole.header('Last-Modified')} are not Souk's {souk_etag} {souk_modified}")
    expect(whole.header("X-Accel-Redirect") is None, "X-Accel-Redirect reached the client")
    expect(len(whole.all("Accept-Ranges")) == 1, f"one Accept-Ranges: {whole.all('Accept-Ranges')}")
    expect(len(whole.all("X-Request-Id")) == 1 and len(whole.header("X-Request-Id")) >= 16, f"Souk's request id: {whole.all('X-Request-Id')}")
    expect(whole.header("Cache-Control") == direct.header("Cache-Control") and whole.header("Content-Type") == direct.header("Content-Type"),
           f"Cache-Control/Content-Type: {whole.header('Cache-Control')} {whole.header('Content-Type')}")
    part = request("GET", nginx + url, headers={"Range": "bytes=100-199"})
    expect(part.status == 206 and part.body == whole.body[100:200] and part.header("Content-Range") == f"bytes 100-199/{len(whole.body)}",
           f"a range through nginx: {part.status} {part.header('Content-Range')}")
    resumed = request("GET", nginx + url, headers={"Range": "bytes=1000-", "If-Range": souk_etag})
    expect(resumed.status == 206 and resumed.body == whole.body[1000:], f"If-Range with Souk's ETag: {resumed.status}")
    resumed = request("GET", nginx + url, headers={"Range": "bytes=1000-", "If-Range": souk_modified})
    expect(resumed.status == 206, f"If-Range with Souk's Last-Modified: {resumed.status}")
    stale = request("GET", nginx + url, headers={"Range": "bytes=1000-", "If-Range": '"' + "0" * 64 + '"'})
    expect(stale.status == 200 and stale.body == whole.body, f"If-Range with another ETag: {stale.status}")
    same = request("GET", nginx + url, headers={"If-None-Match": souk_etag})
    expect(same.status == 304 and same.body == b"", f"If-None-Match with Souk's ETag through nginx: {same.status}")
    head = request("HEAD", nginx + url)
    expect(head.status == 200 and head.header("Content-Length") == str(len(whole.body)), f"HEAD: {head.status} {head.header('Content-Length')}")
    for base in (one, two):
        expect(request("GET", f"{base}/packages/{NOTES}/9999999999/{variant}").status == 404, f"an unknown version at {base}")

    # Hosted content: a promotional grant opens the brush pack; its zip comes from nginx with its name.
    souk(souk_bin, "entitlements", "grant", "--account", buyer_email, "--app", STUDIO_BUNDLE, "--entitlement", "brushes")
    prefix = f"/commerce/{STUDIO_BUNDLE}/content/studio.brushes"
    answer = eventually(lambda: (lambda a: a if a.status == 200 else None)(
        request("GET", f"{nginx}{prefix}/manifest.json", headers=bearer(buyer_token))), "the content manifest after a grant", seconds=5)
    newest = answer.json()["versions"][0]
    direct = request("GET", one + prefix, headers=bearer(buyer_token))
    expect(direct.status == 200 and direct.header("X-Accel-Redirect") and direct.body == b"", f"content at process 1: {direct.status}")
    content = request("GET", nginx + prefix, headers=bearer(buyer_token))
    expect(content.status == 200 and hashlib.sha256(content.body).hexdigest() == newest["sha256"] and len(content.body) == newest["size"],
           f"the content zip through nginx: {content.status}, {len(content.body)} bytes")
    expect(content.header("Content-Disposition") == direct.header("Content-Disposition") and content.header("Content-Disposition"),
           f"Content-Disposition: {content.header('Content-Disposition')} vs Souk's {direct.header('Content-Disposition')}")
    expect(request("GET", nginx + prefix).status == 401, "content without a token through nginx")
    print(f"cluster: X-Accel downloads: nginx sends package and content bytes ({len(whole.body)} and {len(content.body)} bytes),"
          " ranges, If-Range and 304 with Souk's validators")
    return True


def main(nginx, one, two, souk_bin, work):
    proxy(nginx, [one, two])
    web_session(nginx, one, two, souk_bin)
    oauth_code(nginx, one, two, souk_bin)
    buyer_email, buyer_token = purchase(nginx, one, two, souk_bin)
    catalog_change(one, two, souk_bin)
    webhooks(souk_bin)
    renewals(nginx, one, souk_bin)
    client_addresses(nginx, souk_bin)
    if not x_accel(nginx, one, two, souk_bin, buyer_email, buyer_token, work):
        print("cluster: X-ACCEL NOT CHECKED: the processes answered downloads themselves (no X-Accel-Redirect)")
        sys.exit(3)
    print("cluster check: OK")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        fail(__doc__)
    main(*sys.argv[1:6])
