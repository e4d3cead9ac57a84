#!/usr/bin/env python3
"""Keeps Sources/SoukServer/Resources/openapi.json true (docs/api.md). Run by scripts/openapi-check.sh.

    openapi_check.py lint SPEC                   # OpenAPI 3.1 validity, and the rules every operation follows
    openapi_check.py routes SPEC SOURCES         # every route the server registers is documented or knowingly left out
    openapi_check.py served BASE SPEC            # prints "url" when BASE/openapi.json answers (and equals SPEC), "file" otherwise
    openapi_check.py contract BASE SPEC SOUK WORK
    openapi_check.py outage BASE SPEC SOUK WORK   # stops BASE's PostgreSQL (scripts/postgres.sh stop): answers as documented
    openapi_check.py fakes-prepare DIR            # keys for Tests/stores-e2e/fakestores.py (SNS and Roku Pay of the push flows)

`contract` walks real successful flows against a running `souk serve --demo` (started with
SOUK_APPLE_ROOT_CERTIFICATES=WORK/chain/root.der and the two webhook secrets in the environment)
and validates every response against the document with schemathesis's own checks: status
documented, content type, headers, schema. It fails when an operation got no 2xx at all. It leaves
WORK/fuzz.env (the buyer's access token, the RTDN token) for the schemathesis run.
"""
import base64, datetime as dt, hashlib, hmac, html.parser, importlib.util, json, os, re, secrets, subprocess, sys, time, urllib.parse, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
NAME = "openapi"


def fail(message):
    print(f"{NAME}: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# MARK: lint

# Operations that read no storage (no 503 of an outage to document).
NO_STORAGE = {("get", "/.well-known/oauth-authorization-server"), ("get", "/.well-known/openid-configuration"),
              ("get", "/openapi.json")}
# Error answers that are not problem documents, and why.
NOT_PROBLEMS = {
    ("get", "/health", "503"): "the health document itself",
    ("post", "/oauth/token", "400"): "RFC 6749 §5.2",
    ("post", "/oauth/token", "401"): "RFC 6749 §5.2 (invalid_client)",
    ("post", "/oauth/device_authorization", "400"): "RFC 8628 §3.2, errors as RFC 6749 §5.2",
    ("post", "/oauth/device_authorization", "401"): "RFC 8628 §3.2, errors as RFC 6749 §5.2 (invalid_client)",
    ("post", "/oauth/revoke", "400"): "RFC 7009 §2.2.1",
}
SEED_401 = "the payment-provider seed's 401"


def resolve(doc, node):
    while isinstance(node, dict) and "$ref" in node:
        target = doc
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def lint(spec_path):
    from openapi_spec_validator import validate
    with open(spec_path) as handle:
        doc = json.load(handle)
    validate(doc)
    expect(doc["openapi"] == "3.1.0", "openapi must be 3.1.0")
    problems, ids = [], set()
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {path}"
            if operation.get("operationId") in ids or "operationId" not in operation:
                problems.append(f"{where}: a unique operationId")
            ids.add(operation.get("operationId"))
            if "security" not in operation:
                problems.append(f"{where}: say who may call it (`security`, [] for everyone)")
            responses = operation["responses"]
            if "requestBody" in operation and "413" not in responses:
                problems.append(f"{where}: takes a body, so documents 413")
            if (method, path) not in NO_STORAGE and "503" not in responses:
                problems.append(f"{where}: reads storage, so documents 503")
            if not any(code.startswith("2") for code in responses):
                problems.append(f"{where}: documents no success")
            for code, response in responses.items():
                response = resolve(doc, response)
                media = set(response.get("content", {}))
                if code[0] in "45" and (method, path, code) not in NOT_PROBLEMS:
                    schema = resolve(doc, response["content"]["application/json"]["schema"]) if media == {"application/json"} else {}
                    seed = schema.get("properties", {}).get("status", {}).get("const") == 401
                    if media != {"application/problem+json"} and not seed:
                        problems.append(f"{where} {code}: errors are application/problem+json (or {SEED_401})")
                if code == "503" and media == {"application/problem+json"}:
                    header = response.get("headers", {}).get("Retry-After")
                    if header is None:
                        problems.append(f"{where} 503: documents Retry-After (required: false when some 503s come without it)")
    if problems:
        fail("the document breaks its own rules:\n  " + "\n  ".join(problems))
    print(f"{NAME}: {spec_path} is valid OpenAPI 3.1: {sum(len(i) for i in doc['paths'].values())} operations, every one by the rules")


# MARK: routes

# Routes that are not JSON APIs, as registered: (method regex, path regex). HEADs follow their GETs.
NOT_JSON = [
    # The storefront's HTML pages, its sitemaps, icons, media and assets (docs/web.md).
    (r"GET|POST", r"/(|apps|search|sitemap\.xml|favicon\.ico)"),
    (r"GET", r"/(categories/\{slug\}|sitemaps/\{page\}\.xml|assets/\{file\}|media/\{file\}|apps/\{appleItemId\}(/icon)?)"),
    (r"POST", r"/apps/\{appleItemId\}/(install|buy)"),
    # Website sign-in, password reset links, account pages, the operator console and the OAuth authorization page (HTML forms).
    (r"GET|POST", r"/(signin|signin/code|signup|signout|reset/\{token\}|account(/.*)?|admin(/.*)?|oauth/authorize)"),
    # The developer console (HTML forms, docs/developers.md, "Developer console").
    (r"GET|POST", r"/developer(/.*)?"),
    # Where a person types a TV's user code (RFC 8628's verification URI, HTML forms).
    (r"GET|POST", r"/activate"),
    # The license resolution page (HTML), Prometheus text, DER certificates.
    (r"GET", r"/(license/resolve|metrics|marketplace-kit/certificates/(signing|encryption)\.cer)"),
    # Package files: the developer's manifest, signature and variants, served byte for byte (docs/packages.md).
    (r"GET", r"/packages/\{appleItemId\}/\{appleVersionId\}(/\{path\})?"),
]


def registered_routes(sources):
    """(method, path) of every route the controllers register, read from the Swift sources."""
    build = open(os.path.join(sources, "Application+build.swift")).read()
    groups = dict(re.findall(r"(\w+Controller)(?:<[^>(]*>)?\((?:(?!\w+Controller\().)*?\.addRoutes\(to: router\.group\(\"([^\"]+)\"(?:, context: \w+\.self)?\)", build, re.S))
    routes, unreadable = set(), []
    for folder, _, files in os.walk(sources):
        for file in files:
            if not file.endswith(".swift"):
                continue
            text = open(os.path.join(folder, file)).read()
            controllers = re.findall(r"struct (\w+Controller)\b", text)
            prefix = next((groups[c] for c in controllers if c in groups), None)
            for line in text.splitlines():
                match = re.search(r"\b(router|group)\.(get|post|put|patch|delete|head|on)\((.*)", line)
                if not match or "middleware" in match.group(3):
                    continue
                literal = re.match(r'"([^"]*)"', match.group(3))
                if literal:
                    raw = literal.group(1)
                elif match.group(3).startswith("RouterPath(stringLiteral: Self.path)"):
                    raw = re.search(r'static var path: String \{ "([^"]+)" \}', text).group(1)
                else:
                    unreadable.append(f"{file}: {line.strip()}")
                    continue
                if match.group(1) == "group":
                    raw = f"{prefix}/{raw}" if prefix else None
                    if raw is None:
                        unreadable.append(f"{file}: a group route whose prefix is not found in Application+build.swift")
                        continue
                path = "/" + "/".join("{path}" if s == "**" else "{" + s[1:] + "}" if s.startswith(":") else s
                                      for s in raw.strip("/").split("/"))
                methods = ["GET", "HEAD"] if match.group(2) == "on" else [match.group(2).upper()]
                for method in methods:
                    routes.add((method, path))
    return routes, unreadable


def routes(spec_path, sources):
    doc = json.load(open(spec_path))
    documented = {(m.upper(), p) for p, item in doc["paths"].items() for m in item}
    found, unreadable = registered_routes(sources)
    expect(not unreadable, "route registrations this check cannot read (teach registered_routes):\n  " + "\n  ".join(unreadable))
    expect(len(found) > 50, f"only {len(found)} routes found: the reader is broken")

    def left_out(method, path):
        return any(re.fullmatch(m, method) and re.fullmatch(p, path) for m, p in NOT_JSON)

    def serves(route, operation):   # `{version}` also serves the documented `manifest.json`
        (rm, rp), (om, op) = route, operation
        rs, os_ = rp.split("/"), op.split("/")
        return rm == om and len(rs) == len(os_) and all(r == o or r.startswith("{") for r, o in zip(rs, os_))

    # A HEAD answers as its GET does, without the body: documenting the GET is enough.
    missing = sorted(r for r in found if r not in documented and not left_out(*r)
                     and not (r[0] == "HEAD" and (("GET", r[1]) in documented or left_out("GET", r[1]))))
    stale = sorted(o for o in documented if not any(serves(r, o) for r in found) and o != ("GET", "/openapi.json"))
    expect(not missing, "routes the document does not describe (document them, or add them to NOT_JSON with a reason):\n  "
           + "\n  ".join(f"{m} {p}" for m, p in missing))
    expect(not stale, "documented operations no route serves:\n  " + "\n  ".join(f"{m} {p}" for m, p in stale))
    print(f"{NAME}: {len(found)} registered routes: {len(documented & found)} documented, the rest HTML pages or file bytes")


# MARK: served

def served(base, spec_path):
    import requests
    answer = requests.get(f"{base}/openapi.json", timeout=10)
    if answer.status_code == 404:
        print("file")
        return
    expect(answer.status_code == 200, f"GET /openapi.json answered {answer.status_code}")
    expect(answer.headers.get("Content-Type", "").split(";")[0] == "application/json",
           f"GET /openapi.json is {answer.headers.get('Content-Type')!r}, not application/json")
    expect(answer.json() == json.load(open(spec_path)), f"the served /openapi.json differs from {spec_path}")
    print("url")


# MARK: contract

class Contract:
    """Calls the server and validates each answer against the document."""

    def __init__(self, base, spec_path, outage=False):
        import requests, schemathesis
        from schemathesis.checks import not_a_server_error
        from schemathesis.specs.openapi import checks as oc
        self.base = base
        self.outage = outage
        self.schema = schemathesis.openapi.from_path(spec_path)
        # During an outage a 503 is the right answer; `call` refuses every other 5xx itself.
        self.checks = ([] if outage else [not_a_server_error]) + [
            oc.status_code_conformance, oc.content_type_conformance, oc.response_headers_conformance, oc.response_schema_conformance]
        self.http = requests.Session()
        self.seen = {}   # (METHOD, path template) -> set of statuses
        self.count = 0

    def call(self, method, template, expect_status, *, params=None, query=None, headers=None, json_body=None, form=None,
             raw=None, media_type=None, note=""):
        """Sends the request, validates the answer against the operation, checks the status the flow expects."""
        params = params or {}
        path = template
        for name, value in params.items():
            path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        headers = dict(headers or {})
        kwargs = {}
        body = None
        if json_body is not None:
            kwargs["json"] = json_body
            body, media_type = json_body, media_type or "application/json"
        elif form is not None:
            kwargs["data"] = form
            body, media_type = form, "application/x-www-form-urlencoded"
        elif raw is not None:
            kwargs["data"] = raw
            body = raw
            media_type = media_type or headers.get("Content-Type", "application/json")
        if media_type and "Content-Type" not in headers:
            headers["Content-Type"] = media_type
        response = self.http.request(method, self.base + path, params=query, headers=headers, allow_redirects=False, timeout=30, **kwargs)
        operation = self.schema[template][method]
        case = operation.Case(path_parameters=params or None, query=query, headers=headers or None,
                              **({"body": body, "media_type": media_type} if body is not None else {}))
        what = f"{method} {path}{' (' + note + ')' if note else ''}"
        try:
            case.validate_response(response, checks=self.checks)
        except (Exception, BaseExceptionGroup) as error:  # schemathesis's FailureGroup: its message names each violation
            fail(f"{what} answered {response.status_code} against the document:\n{error}")
        expect(response.status_code < 500 or (self.outage and response.status_code == 503),
               f"{what}: {response.status_code} {response.text[:400]!r}")
        if expect_status is not None:
            expect(response.status_code == expect_status,
                   f"{what}: expected {expect_status}, got {response.status_code} {response.text[:400]!r}")
        self.seen.setdefault((method, template), set()).add(response.status_code)
        self.count += 1
        return response

    def report(self, served_document):
        documented = [(m.upper(), p) for p, item in self.schema.raw_schema["paths"].items() for m in item]
        missing = [f"{m} {p}" for m, p in documented
                   if not any(200 <= s < 300 for s in self.seen.get((m, p), ())) and not (p == "/openapi.json" and not served_document)]
        expect(not missing, "operations without one successful answer in the contract flows (add a flow):\n  " + "\n  ".join(missing))
        statuses = sum(len(s) for s in self.seen.values())
        print(f"{NAME}: contract: {self.count} answers valid against the document; {len(self.seen)} operations, "
              f"{statuses} (operation, status) pairs, every operation with a 2xx")


class FormReader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields, self.action = {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attrs.get("action")
        if tag == "input" and attrs.get("type") == "hidden":
            self.fields[attrs["name"]] = attrs.get("value", "")


NOTES, STUDIO_APP, SKETCH = "6446000001", "6446000003", "6446000004"   # apps of the demo
STUDIO = "org.souk.demo.studio"                                          # the demo's in-app catalog
OLD_NOTES, NEW_NOTES = "8000000101", "8000000102"


def sign_in(c, email, password, client_id, scope=None):
    """A device's sign-in: the authorization page (HTML, not in the document), the form, the code, the token."""
    import requests
    verifier = secrets.token_hex(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = secrets.token_hex(8)
    browser = requests.Session()
    page = browser.get(f"{c.base}/oauth/authorize", params={
        "client_id": client_id, "response_type": "code", "redirect_uri": "app-distribution-oauth://",
        "code_challenge": challenge, "code_challenge_method": "S256", "state": state,
        **({"scope": scope, "nonce": secrets.token_hex(8)} if scope else {})}, timeout=30)
    expect(page.status_code == 200, f"authorization page: {page.status_code}")
    form = FormReader()
    form.feed(page.text)
    answer = browser.post(urllib.parse.urljoin(f"{c.base}/oauth/authorize", form.action or "/oauth/authorize"),
                          data=dict(form.fields, email=email, password=password), allow_redirects=False, timeout=30)
    location = answer.headers.get("Location", "")
    expect(answer.status_code == 302 and location.startswith("app-distribution-oauth:"), f"sign-in: {answer.status_code} {location}")
    redirect = dict(urllib.parse.parse_qsl(location.split("?", 1)[1]))
    expect(redirect.get("state") == state, "the redirect's state")
    redemption = {"grant_type": "authorization_code", "code": redirect["code"], "code_verifier": verifier, "client_id": client_id}
    token = c.call("POST", "/oauth/token", 200, form=redemption).json()
    return token, redemption


def souk(bin_path, *args):
    run = subprocess.run([bin_path, *args], capture_output=True, text=True, timeout=120)
    expect(run.returncode == 0, f"souk {' '.join(args)} exited {run.returncode}: {run.stderr.strip()[-400:]}")
    return run.stdout


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def flows_oauth(c, souk_bin, work):
    password = secrets.token_hex(16)
    for email in ("buyer@example.com", "other@example.com"):
        souk(souk_bin, "accounts", "create", "--email", email, "--password", password)
    buyer, _ = sign_in(c, "buyer@example.com", password, "openapi-" + secrets.token_hex(4))
    other, _ = sign_in(c, "other@example.com", password, "openapi-" + secrets.token_hex(4))
    # A code presented twice fails, and revokes what it gave (RFC 6749 §4.1.2).
    stolen, redemption = sign_in(c, "other@example.com", password, "openapi-" + secrets.token_hex(4))
    c.call("POST", "/oauth/token", 400, form=redemption, note="the code again")
    c.call("GET", "/api/v1/account", 403, headers=bearer(stolen["access_token"]), note="a token of a code used twice")
    c.call("GET", "/.well-known/oauth-authorization-server", 200)
    c.call("GET", "/.well-known/jwks.json", 200)
    client = "openapi-refresh"
    session, _ = sign_in(c, "other@example.com", password, client)
    refreshed = c.call("POST", "/oauth/token", 200, form={"grant_type": "refresh_token", "refresh_token": session["refresh_token"],
                                                          "client_id": client}).json()
    c.call("POST", "/oauth/token", 400, form={"grant_type": "refresh_token", "refresh_token": session["refresh_token"], "client_id": "someone-else"},
           note="a refresh token of another client")
    c.call("POST", "/oauth/token", 400, form={"grant_type": "password", "client_id": client}, note="an unsupported grant")
    c.call("POST", "/oauth/token", 400, form={"grant_type": "refresh_token"}, note="no client_id")
    # An install link's grant, exchanged (RFC 8693).
    link = souk(souk_bin, "links", "install", "--apple-item-id", STUDIO_APP, "--account", "buyer@example.com").strip()
    grant = dict(urllib.parse.parse_qsl(link.split("?", 1)[1]))["token"]
    c.call("POST", "/oauth/token", 200, form={"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": grant,
                                              "subject_token_type": "urn:ietf:params:oauth:token-type:access_token", "client_id": "openapi-device"})
    # A registered TV asks for codes (RFC 8628) and polls; other clients are refused.
    tv = souk(souk_bin, "clients", "add", "--name", "OpenAPI TV", "--kind", "tv").strip()
    codes = c.call("POST", "/oauth/device_authorization", 200, form={"client_id": tv}).json()
    c.call("POST", "/oauth/token", 400, form={"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": codes["device_code"],
                                              "client_id": tv}, note="authorization_pending")
    c.call("POST", "/oauth/device_authorization", 401, form={"client_id": "openapi-unregistered"}, note="an unregistered client")
    c.call("GET", "/api/v1/account", 200, headers=bearer(buyer["access_token"]))
    c.call("GET", "/api/v1/account", 401)
    # OpenID Connect: discovery, and UserInfo for a sign-in with openid email (GET and POST).
    c.call("GET", "/.well-known/openid-configuration", 200)
    person, _ = sign_in(c, "buyer@example.com", password, "openapi-oidc", scope="openid email")
    expect(bool(person.get("id_token")), f"an id_token for scope openid: {sorted(person)}")
    c.call("GET", "/oauth/userinfo", 200, headers=bearer(person["access_token"]))
    c.call("POST", "/oauth/userinfo", 200, headers=bearer(person["access_token"]))
    c.call("GET", "/oauth/userinfo", 401, note="no token")
    c.call("GET", "/api/v1/account", 403, headers=bearer("sat_" + secrets.token_hex(16)))
    # Revocation: a refresh token revokes its family, so its access token stops working.
    c.call("POST", "/oauth/revoke", 200, form={"token": refreshed["refresh_token"]})
    c.call("GET", "/api/v1/account", 403, headers=bearer(refreshed["access_token"]), note="after revocation")
    c.call("POST", "/oauth/revoke", 200, form={"token": "srt_" + secrets.token_hex(16)}, note="an unknown token")
    c.call("POST", "/oauth/revoke", 400, form={"token_type_hint": "refresh_token"}, note="no token")
    return buyer["access_token"], other["access_token"]


def flows_marketplace_kit(c, buyer, other):
    c.call("GET", "/health", 200)
    # Ready: the server was started by serve-lib's `start`, which waits for this very answer (its
    # 503 comes only while the indexes load, or with the database down: the outage flow below).
    c.call("GET", "/health/ready", 200)
    c.call("GET", "/.well-known/marketplace-kit", 200)
    apps = lambda *pairs: {"apps": [{"appleItemId": a, "appleVersionId": v} for a, v in pairs], "platform": "iOS", "osVersion": "17.4"}
    answer = c.call("POST", "/marketplace-kit/v1/updates", 200, json_body=apps((NOTES, OLD_NOTES), ("1", "2"))).json()
    expect([u["appleVersionId"] for u in answer["updates"]] == [NEW_NOTES] and answer["failures"][0]["failure"]["code"] == 404,
           f"an update and a failure: {answer}")
    answer = c.call("POST", "/marketplace-kit/v1/restore", 200, json_body=apps((STUDIO_APP, "0")), headers=bearer(buyer)).json()
    expect(len(answer["restores"]) == 1, f"a restore of an account app: {answer}")
    c.call("POST", "/marketplace-kit/v1/restore", 401, json_body=apps((STUDIO_APP, "0")), note="an account app without a token")
    c.call("POST", "/marketplace-kit/v1/updates", 403, json_body=apps((NOTES, OLD_NOTES)), headers=bearer("sat_" + secrets.token_hex(8)))
    c.call("POST", "/marketplace-kit/v1/restore", 402, json_body=apps((SKETCH, "0")), headers=bearer(other), note="a paid app not bought")
    c.call("POST", "/marketplace-kit/v1/updates", 400, json_body={"apps": "none", "platform": "iOS", "osVersion": "17.4"})
    c.call("POST", "/marketplace-kit/v1/updates", 400, json_body=apps(*[(str(6500000000 + i), "0") for i in range(1001)]), note="1,001 apps (maxItems)")
    c.call("POST", "/marketplace-kit/v1/updates", 413, raw=b'{"apps": [], "pad": "' + b"x" * (1 << 20) + b'"}',
           media_type="application/json", note="a body over 1 MiB")


def flows_licenses(c, buyer, other):
    lc = load("license_check", "scripts/license-check.py")
    market = lc.Marketplace(c.base)
    device = secrets.token_hex(16)

    def sealed(action, **ids):
        request, key = market.seal(json.dumps({"requestId": secrets.randbelow(1 << 53), "deviceId": device, "action": action, **ids}).encode())
        return request, key

    request, key = sealed("create", appleItemIds=[NOTES])
    body = {"licenseRequest": request, "licenseKey": key,
            "appsById": {NOTES: {"appleVersionId": NEW_NOTES, "assetPublicId": market.asset(NOTES, NEW_NOTES)}}}
    answer = c.call("POST", "/marketplace-kit/v1/license", 200, json_body=body).json()
    license_id = market.licenses(answer["license"])["licenses"][0]["licenseId"]
    request, key = sealed("renew", licenseIds=[str(license_id)])
    c.call("POST", "/marketplace-kit/v1/license/renew", 200, json_body={"renewalRequest": request, "licenseKey": key})
    request, key = sealed("create", appleItemIds=[SKETCH])
    c.call("POST", "/marketplace-kit/v1/license", 402, headers=bearer(other), note="a paid app not bought",
           json_body={"licenseRequest": request, "licenseKey": key, "appsById": {SKETCH: {"appleVersionId": "0"}}})
    garbage = base64.b64encode(os.urandom(384)).decode()
    c.call("POST", "/marketplace-kit/v1/license", 400, json_body={"licenseRequest": garbage, "licenseKey": garbage, "appsById": {NOTES: {}}},
           note="an envelope that cannot be opened")
    c.call("POST", "/marketplace-kit/v1/license/renew", 400, json_body={"renewalRequest": "%%%", "licenseKey": "x"})


def flows_selling(c, buyer, other):
    answer = c.call("POST", "/api/v1/checkout", 201, json_body={"appleItemId": SKETCH}, headers=bearer(buyer)).json()
    expect(answer["orderId"], f"an order: {answer}")
    c.call("POST", "/api/v1/checkout", 409, json_body={"appleItemId": SKETCH}, headers=bearer(buyer), note="already owned (paid at once)")
    restored = c.call("POST", "/marketplace-kit/v1/restore", 200, headers=bearer(buyer),
                      json_body={"apps": [{"appleItemId": SKETCH}], "platform": "iOS", "osVersion": "17.4"}).json()
    expect(len(restored["restores"]) == 1, f"the bought app is restored: {restored}")
    c.call("POST", "/api/v1/checkout", 201, json_body={"productId": "member.monthly", "currency": "USD"}, headers=bearer(buyer))
    held = c.call("POST", "/api/v1/checkout", 409, json_body={"productId": "member.monthly"}, headers=bearer(buyer), note="plan held").json()
    expect(held.get("accountURL", "").endswith("/account"), f"the 409 links the account page: {held}")
    c.call("POST", "/api/v1/checkout", 400, json_body={"appleItemId": SKETCH, "productId": "member.monthly"}, headers=bearer(buyer))
    c.call("POST", "/api/v1/checkout", 404, json_body={"appleItemId": "6999999999"}, headers=bearer(buyer))
    c.call("POST", "/api/v1/checkout", 401, json_body={"appleItemId": SKETCH})
    purchases = c.call("GET", "/api/v1/purchases", 200, headers=bearer(buyer)).json()
    expect({p.get("appleItemId") or p.get("productId") for p in purchases} == {SKETCH, "member.monthly"}, f"receipts: {purchases}")
    c.call("GET", "/api/v1/purchases", 401)


def flows_marketplace_app(c, buyer, other):
    """The marketplace app's API (docs/api.md): catalog reads with and without a token, and the install endpoint."""
    listed = c.call("GET", "/api/v1/apps", 200)
    c.call("GET", "/api/v1/apps", 304, headers={"If-None-Match": listed.headers["ETag"]})
    page = c.call("GET", "/api/v1/apps", 200, query={"pageSize": "1"}).json()
    expect(page["next"], f"a next page: {page}")
    c.call("GET", "/api/v1/apps", 200, query=dict(urllib.parse.parse_qsl(urllib.parse.urlparse(page["next"]).query)))
    c.call("GET", "/api/v1/apps", 200, query={"query": "notes", "platform": "iOS", "osVersion": "17.4"}, headers=bearer(buyer))
    c.call("GET", "/api/v1/apps", 400, query={"pageSize": "500"})
    c.call("GET", "/api/v1/apps", 403, headers=bearer("sat_not-a-token"))
    mine = c.call("GET", "/api/v1/apps/{appleItemId}", 200, params={"appleItemId": SKETCH}, headers=bearer(buyer)).json()
    expect(mine.get("access", {}).get("action") in ("install", "open"), f"a bought app installs: {mine.get('access')}")
    c.call("GET", "/api/v1/apps/{appleItemId}", 404, params={"appleItemId": "6999999999"})
    c.call("GET", "/api/v1/categories", 200)
    c.call("GET", "/api/v1/featured", 200)
    device = {"platform": "iOS", "osVersion": "17.4", "installedVersionId": None}
    c.call("POST", "/api/v1/apps/{appleItemId}/install", 200, params={"appleItemId": NOTES}, json_body=device, headers=bearer(buyer))
    c.call("POST", "/api/v1/apps/{appleItemId}/install", 200, params={"appleItemId": SKETCH}, json_body=device, headers=bearer(buyer))
    unpaid = c.call("POST", "/api/v1/apps/{appleItemId}/install", 402, params={"appleItemId": SKETCH}, json_body=device,
                    headers=bearer(other)).json()
    expect(unpaid.get("checkout", {}).get("body") == {"appleItemId": SKETCH}, f"the checkout to make: {unpaid}")
    c.call("POST", "/api/v1/apps/{appleItemId}/install", 409, params={"appleItemId": NOTES},
           json_body={"platform": "iOS", "osVersion": "1.0"}, headers=bearer(buyer))
    c.call("POST", "/api/v1/apps/{appleItemId}/install", 404, params={"appleItemId": "6999999999"}, json_body=device, headers=bearer(buyer))
    c.call("POST", "/api/v1/apps/{appleItemId}/install", 400, params={"appleItemId": NOTES}, json_body={"platform": "iOS"}, headers=bearer(buyer))
    c.call("POST", "/api/v1/apps/{appleItemId}/install", 401, params={"appleItemId": NOTES}, json_body=device)
    account = c.call("GET", "/api/v1/account", 200, headers=bearer(buyer)).json()
    expect(SKETCH in {p.get("appleItemId") for p in account.get("purchases", [])}, f"the account lists its purchases: {account}")


def stripe_header(payload, secret, at=None):
    t = int(at if at is not None else time.time())
    return f"t={t},v1=" + hmac.new(secret.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()


def flows_webhooks(c):
    stripe_secret, asc_secret = os.environ["SOUK_STRIPE_WEBHOOK_SECRET"], os.environ["SOUK_ASC_WEBHOOK_SECRET"]
    event = json.dumps({"id": "evt_" + secrets.token_hex(8), "type": "customer.subscription.deleted", "created": int(time.time()),
                        "data": {"object": {"id": "sub_" + secrets.token_hex(8), "object": "subscription", "status": "canceled",
                                            "cancel_at_period_end": False}}}).encode()
    c.call("POST", "/webhooks/stripe", 200, raw=event, headers={"Stripe-Signature": stripe_header(event, stripe_secret)},
           media_type="application/json", note="an event for no subscription of Souk's")
    c.call("POST", "/webhooks/stripe", 400, raw=event, headers={"Stripe-Signature": stripe_header(event, "whsec_wrong")},
           media_type="application/json", note="a wrong signature")
    c.call("POST", "/webhooks/stripe", 400, raw=event, headers={"Stripe-Signature": stripe_header(event, stripe_secret, time.time() - 3600)},
           media_type="application/json", note="an old signature")
    # A signed event Souk cannot read is the sender's mistake: a 4xx, never a 500 (Stripe would retry it for days).
    broken = json.dumps({"id": "evt_" + secrets.token_hex(8), "type": "checkout.session.completed", "created": int(time.time()),
                         "data": {"object": {"object": "checkout.session"}}}).encode()
    c.call("POST", "/webhooks/stripe", 400, raw=broken, headers={"Stripe-Signature": stripe_header(broken, stripe_secret)},
           media_type="application/json", note="a signed checkout.session.completed without its session's fields")

    def asc(body, secret=asc_secret):
        return {"x-apple-signature": "hmacsha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()}

    notice = json.dumps({"data": {"type": "WebhookPingCreated", "version": 1, "id": str(uuid.uuid4()),
                                  "timestamp": dt.datetime.now(dt.timezone.utc).isoformat(), "attributes": {}}}).encode()
    c.call("POST", "/webhooks/app-store-connect", 202, raw=notice, headers=asc(notice), media_type="application/json")
    c.call("POST", "/webhooks/app-store-connect", 200, raw=notice, headers=asc(notice), media_type="application/json", note="a redelivery")
    c.call("POST", "/webhooks/app-store-connect", 401, raw=notice, headers=asc(notice, "wrong"), media_type="application/json")
    odd = b'{"nodata": true}'
    c.call("POST", "/webhooks/app-store-connect", 400, raw=odd, headers=asc(odd), media_type="application/json", note="signed, not an event")


def flows_catalog(c):
    first = c.call("GET", "/commerce/{app}/products_v1.json", 200, params={"app": STUDIO})
    c.call("GET", "/commerce/{app}/products_v1.json", 304, params={"app": STUDIO}, headers={"If-None-Match": first.headers["ETag"]})
    c.call("GET", "/commerce/{app}/products_v1.json", 304, params={"app": STUDIO}, headers={"If-Modified-Since": first.headers["Last-Modified"]})
    c.call("GET", "/commerce/{app}/products_v2.json", 200, params={"app": STUDIO}, query={"store": "google_play"})
    feed = c.call("GET", "/commerce/{app}/products", 200, params={"app": STUDIO}, query={"platform": "android"}).json()
    expect(all(list(e["extensions"]["external_sku"]) == ["google_play"] for e in feed["entry"]), f"a Google Play feed: {feed}")
    c.call("GET", "/commerce/{app}/products", 400, params={"app": STUDIO}, query={"page": "0"})
    c.call("GET", "/commerce/{app}/products_v2.json", 400, params={"app": STUDIO}, query={"store": "nowhere"})
    c.call("GET", "/commerce/{app}/products_v1.json", 404, params={"app": "org.example.none"})


def apple_transaction(chain, applechain, sku, kind, days=30, environment="Production"):
    now = dt.datetime.now(dt.timezone.utc)
    transaction_id = str(2_000_000_000_000_000 + secrets.randbelow(10**12))
    payload = applechain.transaction(STUDIO, sku, environment=environment, signed=now, transaction_id=transaction_id, type=kind,
                                     expiresDate=applechain.ms(now + dt.timedelta(days=days)) if kind == "Auto-Renewable Subscription" else None)
    return chain.sign(payload), transaction_id


def cloud_event(product_id, sku, jws, transaction_id):
    return {"specversion": "1.0", "type": "com.applicaster.payment.validate", "source": f"studio://{STUDIO}/1.0", "id": str(uuid.uuid4()),
            "time": dt.datetime.now(dt.timezone.utc).isoformat(), "datacontenttype": "application/json",
            "data": {"transaction": {"storeProductId": sku, "transactionId": transaction_id, "receipt": jws},
                     "productId": product_id, "store": "apple_store", "platform": "ios"}}


def flows_commerce(c, buyer, other, work):
    cc = load("commerce_check", "scripts/commerce-check.py")
    applechain = sys.modules["applechain"]
    chain = cc.load_chain(os.path.join(work, "chain"))
    app = {"app": STUDIO}
    monthly, monthly_id = apple_transaction(chain, applechain, f"{STUDIO}.monthly", "Auto-Renewable Subscription")
    c.call("POST", "/commerce/{app}/transactions", 201, params=app, headers=bearer(buyer),
           raw=json.dumps(cloud_event("studio.monthly", f"{STUDIO}.monthly", monthly, monthly_id)).encode(),
           media_type="application/cloudevents+json", note="structured mode")
    brushes, brushes_id = apple_transaction(chain, applechain, f"{STUDIO}.brushes", "Non-Consumable")
    c.call("POST", "/commerce/{app}/transactions", 201, params=app, headers=bearer(buyer),
           json_body=cloud_event("studio.brushes", f"{STUDIO}.brushes", brushes, brushes_id), note="structured mode, application/json")
    credits, credits_id = apple_transaction(chain, applechain, f"{STUDIO}.credits50", "Consumable")
    event = cloud_event("studio.credits.50", f"{STUDIO}.credits50", credits, credits_id)
    binary = {f"ce-{k}": v for k, v in event.items() if k not in ("data", "datacontenttype")}
    c.call("POST", "/commerce/{app}/transactions", 201, params=app, headers={**bearer(buyer), **binary},
           raw=json.dumps(event["data"]).encode(), media_type="application/json", note="binary mode")
    wrong, wrong_id = apple_transaction(chain, applechain, f"{STUDIO}.yearly", "Auto-Renewable Subscription")
    c.call("POST", "/commerce/{app}/transactions", 422, params=app, headers=bearer(buyer),
           json_body=cloud_event("studio.monthly", f"{STUDIO}.monthly", wrong, wrong_id), note="the signed SKU is another product's")
    c.call("POST", "/commerce/{app}/transactions", 400, params=app, headers=bearer(buyer), json_body={"specversion": "0.3"})
    c.call("POST", "/commerce/{app}/transactions", 401, params=app, json_body={"specversion": "1.0"})
    c.call("POST", "/commerce/{app}/transactions", 404, params={"app": "org.example.none"}, headers=bearer(buyer), json_body={"specversion": "1.0"})

    listed = c.call("GET", "/commerce/{app}/entitlements", 200, params=app, headers=bearer(buyer)).json()
    expect({e["id"] for e in listed} >= {"studio.monthly", "studio.brushes"}, f"entitlements: {listed}")
    c.call("GET", "/commerce/{app}/entitlement/{id}", 200, params={**app, "id": "pro"}, headers=bearer(buyer))
    c.call("GET", "/commerce/{app}/entitlement/{id}", 200, params={**app, "id": "brushes"}, query={"access_token": buyer}, note="access_token")
    ctx = base64.urlsafe_b64encode(json.dumps({"access_token": buyer}).encode()).decode().rstrip("=")
    c.call("GET", "/commerce/{app}/entitlement/{id}", 200, params={**app, "id": "studio.monthly"}, query={"ctx": ctx}, note="Zapp's ctx")
    c.call("GET", "/commerce/{app}/entitlement/{id}", 401, params={**app, "id": "pro"}, headers=bearer(other), note="not entitled")
    c.call("GET", "/commerce/{app}/entitlements", 401, params=app)
    c.call("GET", "/commerce/{app}/user-purchases", 200, params=app, headers=bearer(buyer))
    c.call("GET", "/commerce/{app}/user-purchases", 401, params=app, headers=bearer("sat_" + secrets.token_hex(8)))
    customer = c.call("GET", "/commerce/{app}/customer", 200, params=app, headers=bearer(buyer))
    c.call("GET", "/commerce/{app}/customer", 304, params=app, headers={**bearer(buyer), "If-None-Match": customer.headers["ETag"]})
    c.call("GET", "/commerce/{app}/customer", 404, params={"app": "org.example.none"}, headers=bearer(buyer))
    c.call("GET", "/commerce/{app}/balances", 200, params=app, headers=bearer(buyer))
    c.call("POST", "/commerce/{app}/consume", 200, params=app, headers=bearer(buyer), json_body={"productId": "studio.credits.50", "quantity": 1})
    c.call("POST", "/commerce/{app}/consume", 409, params=app, headers=bearer(buyer), json_body={"productId": "studio.credits.50", "quantity": 1000000})
    c.call("POST", "/commerce/{app}/consume", 422, params=app, headers=bearer(buyer), json_body={"productId": "studio.brushes"})
    c.call("POST", "/commerce/{app}/consume", 400, params=app, headers=bearer(buyer), json_body={"productId": "studio.credits.50", "quantity": 0})
    c.call("POST", "/commerce/{app}/consume", 400, params=app, headers=bearer(buyer), json_body={"quantity": 1}, note="no productId")
    unsigned = "eyJhbGciOiJFUzI1NiJ9.e30.c2lnbmF0dXJl"  # a JWS in form, signed by nobody Apple knows
    restored = c.call("POST", "/commerce/{app}/restore", 200, params=app, headers=bearer(other),
                      json_body={"signedTransactions": [monthly, unsigned]}, note="one of two refused")
    expect(restored.headers.get("Souk-Restore-Refused") == "1", f"Souk-Restore-Refused: {restored.headers}")
    c.call("POST", "/commerce/{app}/restore", 422, params=app, headers=bearer(other), json_body={"signedTransactions": [unsigned]})
    c.call("POST", "/commerce/{app}/restore", 400, params=app, headers=bearer(other), json_body={"signedTransactions": [monthly, "not-a-jws"]},
           note="an entry that is not a compact JWS")
    c.call("POST", "/commerce/{app}/restore", 400, params=app, headers=bearer(other), json_body={"signed": []})
    token = c.call("GET", "/commerce/{app}/account-token", 200, params=app, headers=bearer(buyer)).json()["accountToken"]
    expect(customer.json()["account"]["accountToken"] == token, f"the customer document shows the account token: {customer.json()['account']}")
    c.call("GET", "/commerce/{app}/account-token", 401, params=app)
    c.call("GET", "/commerce/{app}/account-token", 404, params={"app": "org.example.none"}, headers=bearer(buyer))
    return chain


def flows_content(c, buyer, other):
    # `other` took the monthly plan over by restoring its transaction (transferPolicy=transfer); the buyer keeps the brush pack.
    app = {"app": STUDIO, "productId": "studio.brushes"}
    manifest = c.call("GET", "/commerce/{app}/content/{productId}/manifest.json", 200, params=app, headers=bearer(buyer))
    c.call("GET", "/commerce/{app}/content/{productId}/manifest.json", 304, params=app,
           headers={**bearer(buyer), "If-None-Match": manifest.headers["ETag"]})
    version = manifest.json()["versions"][0]["contentVersion"]
    whole = c.call("GET", "/commerce/{app}/content/{productId}", 200, params=app, headers=bearer(buyer))
    expect(hashlib.sha256(whole.content).hexdigest() == manifest.json()["versions"][0]["sha256"], "the zip's SHA-256")
    c.call("GET", "/commerce/{app}/content/{productId}/{version}", 200, params={**app, "version": version}, headers=bearer(buyer))
    part = c.call("GET", "/commerce/{app}/content/{productId}/{version}", 206, params={**app, "version": version},
                  headers={**bearer(buyer), "Range": "bytes=0-99"})
    expect(part.content == whole.content[:100], "a range is the zip's first bytes")
    c.call("GET", "/commerce/{app}/content/{productId}", 304, params=app, headers={**bearer(buyer), "If-None-Match": whole.headers["ETag"]})
    c.call("GET", "/commerce/{app}/content/{productId}", 416, params=app, headers={**bearer(buyer), "Range": f"bytes={len(whole.content) + 10}-"})
    c.call("GET", "/commerce/{app}/content/{productId}/{version}", 404, params={**app, "version": "99.0"}, headers=bearer(buyer))
    c.call("GET", "/commerce/{app}/content/{productId}", 403, params=app, headers=bearer(other), note="not entitled")
    c.call("GET", "/commerce/{app}/content/{productId}/manifest.json", 401, params=app)
    c.call("GET", "/commerce/{app}/content/{productId}", 404, params={"app": STUDIO, "productId": "studio.none"}, headers=bearer(buyer))


def flows_notifications(c, chain, souk_bin, work):
    app = {"app": STUDIO}
    now = int(time.time() * 1000)
    note = {"notificationType": "TEST", "notificationUUID": str(uuid.uuid4()), "version": "2.0", "signedDate": now,
            "data": {"bundleId": STUDIO, "environment": "Sandbox"}}
    c.call("POST", "/commerce/{app}/apple/notifications", 200, params=app, json_body={"signedPayload": chain.sign(note)})
    c.call("POST", "/commerce/{app}/apple/notifications", 200, params=app, json_body={"signedPayload": chain.sign(note)}, note="the same uuid")
    other = dict(note, notificationUUID=str(uuid.uuid4()), data={"bundleId": "org.example.other", "environment": "Sandbox"})
    c.call("POST", "/commerce/{app}/apple/notifications", 403, params=app, json_body={"signedPayload": chain.sign(other)})
    c.call("POST", "/commerce/{app}/apple/notifications", 401, params=app, json_body={"signedPayload": "a.b.c"})
    c.call("POST", "/commerce/{app}/apple/notifications", 400, params=app, json_body={"payload": "none"})
    c.call("POST", "/commerce/{app}/apple/notifications", 404, params={"app": "org.example.none"}, json_body={"signedPayload": "a.b.c"})
    token = secrets.token_hex(16)
    with open(os.path.join(work, "rtdn-token"), "w") as handle:
        handle.write(token + "\n")
    souk(souk_bin, "stores", "set", "--app", STUDIO, "--store", "google_play", "--package-name", STUDIO,
         "--rtdn-token-path", os.path.join(work, "rtdn-token"))

    def push(package, message_id):
        notification = {"version": "1.0", "packageName": package, "eventTimeMillis": str(now), "testNotification": {"version": "1.0"}}
        return {"message": {"data": base64.b64encode(json.dumps(notification).encode()).decode(), "messageId": message_id,
                            "publishTime": dt.datetime.now(dt.timezone.utc).isoformat()}, "subscription": "projects/souk/subscriptions/rtdn"}

    deadline = time.time() + 10   # the store settings reach the server with the catalog refresh
    while True:
        answer = c.http.post(f"{c.base}/commerce/{STUDIO}/google/rtdn", params={"token": token}, json=push(STUDIO, "probe"), timeout=30)
        if answer.status_code != 401 or time.time() > deadline:
            break
        time.sleep(0.2)
    c.call("POST", "/commerce/{app}/google/rtdn", 200, params=app, query={"token": token}, json_body=push(STUDIO, "m-" + secrets.token_hex(4)))
    c.call("POST", "/commerce/{app}/google/rtdn", 401, params=app, query={"token": "wrong"}, json_body=push(STUDIO, "m-2"))
    c.call("POST", "/commerce/{app}/google/rtdn", 400, params=app, query={"token": token}, json_body=push("org.example.other", "m-3"))
    c.call("POST", "/commerce/{app}/google/rtdn", 400, params=app, query={"token": token}, json_body={"message": {}})
    return token


def flows_offers(c, buyer, other, souk_bin, work):
    """Promotional offers: the studio's monthly plan lists two; answered 503 until the operator sets the offer key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    app, path = {"app": STUDIO}, "/commerce/{app}/offers/signature"
    catalog = json.loads(souk(souk_bin, "catalog", "show", STUDIO))
    for product in catalog["products"]:
        if product["id"] == "studio.monthly":
            product["offers"] = [{"id": "welcome", "eligibility": "any"}, {"id": "winback", "eligibility": "lapsed"}]
    catalog_path = os.path.join(work, "studio-offers.json")
    with open(catalog_path, "w") as handle:
        json.dump(catalog, handle)
    souk(souk_bin, "catalog", "apply", catalog_path)
    welcome = {"productId": "studio.monthly", "offerId": "welcome"}

    def settled(expected):   # the catalog and its stores reach the server with the catalog refresh
        deadline = time.time() + 10
        while c.http.post(f"{c.base}/commerce/{STUDIO}/offers/signature", json=welcome, headers=bearer(buyer), timeout=30).status_code != expected:
            expect(time.time() < deadline, f"offers/signature never answered {expected}")
            time.sleep(0.2)

    settled(503)   # no offer key yet: not fed to `call`, which refuses every 5xx outside the outage check
    unset = c.http.post(f"{c.base}/commerce/{STUDIO}/offers/signature", json=welcome, headers=bearer(buyer), timeout=30)
    expect(unset.json()["type"] == "urn:souk:problem:offer-signing-not-configured" and "Retry-After" not in unset.headers,
           f"offers/signature without an offer key: {unset.status_code} {unset.text}")
    key = ec.generate_private_key(ec.SECP256R1())
    key_path = os.path.join(work, "offer-key.p8")
    with open(key_path, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    souk(souk_bin, "stores", "set", "--app", STUDIO, "--store", "apple_store", "--issuer-id", str(uuid.uuid4()),
         "--offer-key-id", "OFFERKEY01", "--offer-private-key-path", key_path)
    settled(200)
    signed = c.call("POST", path, 200, params=app, headers=bearer(buyer),
                    json_body={**welcome, "applicationUsername": str(uuid.uuid4()), "transactionId": "2000000000000001"}).json()
    expect(signed["keyIdentifier"] == "OFFERKEY01", f"the offer key id: {signed}")
    c.call("POST", path, 403, params=app, headers=bearer(other), json_body={"productId": "studio.monthly", "offerId": "winback"},
           note="a win-back for someone whose plan is active")
    c.call("POST", path, 404, params=app, headers=bearer(buyer), json_body={"productId": "studio.monthly", "offerId": "none"})
    c.call("POST", path, 400, params=app, headers=bearer(buyer), json_body={"offerId": "welcome"}, note="no productId")
    c.call("POST", path, 401, params=app, json_body=welcome)
    c.call("POST", path, 404, params={"app": "org.example.none"}, headers=bearer(buyer), json_body=welcome)


def flows_app_transaction(c, chain, buyer):
    app = {"app": STUDIO}
    payload = {"receiptType": "Production", "bundleId": STUDIO, "applicationVersion": "3.1", "originalApplicationVersion": "1.0",
               "receiptCreationDate": int(time.time() * 1000), "originalPurchaseDate": 1577836800000,
               "appTransactionId": "704289572311258389", "originalPlatform": "iOS"}
    answer = c.call("POST", "/commerce/{app}/app-transaction", 200, params=app, headers=bearer(buyer),
                    json_body={"appTransaction": chain.sign(payload)})
    expect(answer.json()["originalPurchaseDate"] == "2020-01-01T00:00:00Z", f"app transaction: {answer.json()}")
    c.call("POST", "/commerce/{app}/app-transaction", 422, params=app, headers=bearer(buyer),
           json_body={"appTransaction": chain.sign(dict(payload, bundleId="org.example.other"))}, note="another app's")
    c.call("POST", "/commerce/{app}/app-transaction", 400, params=app, headers=bearer(buyer), json_body={"transaction": "x"})
    c.call("POST", "/commerce/{app}/app-transaction", 401, params=app, json_body={"appTransaction": "a.b.c"})
    c.call("POST", "/commerce/{app}/app-transaction", 404, params={"app": "org.example.none"}, headers=bearer(buyer),
           json_body={"appTransaction": "a.b.c"})


def fakes_prepare(folder):
    """The files Tests/stores-e2e/fakestores.py starts with: a Google public key it will not use here, the Roku key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    os.makedirs(folder, exist_ok=True)
    public = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    with open(os.path.join(folder, "public.pem"), "wb") as handle:
        handle.write(public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    with open(os.path.join(folder, "secrets.json"), "w") as handle:
        json.dump({"roku": "roku-key-" + secrets.token_hex(12), "amazon": "amz-secret-" + secrets.token_hex(12)}, handle)


def flows_push_notifications(c, souk_bin, work):
    """Amazon SNS and Roku Pay pushes against Tests/stores-e2e/fakestores.py (SOUK_OPENAPI_FAKES): the server
    trusts SNS certificates on 127.0.0.1 and asks the fake Roku Pay."""
    fakes = os.environ.get("SOUK_OPENAPI_FAKES")
    expect(fakes, "SOUK_OPENAPI_FAKES is not set (scripts/openapi-check.sh starts the fake stores)")
    app = {"app": STUDIO}

    def control(what, body):
        answer = c.http.post(f"{fakes}/_control/{what}", json=body, timeout=30)
        expect(answer.status_code == 200, f"fake control {what}: {answer.status_code}")
        return answer.json()

    message = json.dumps({"appPackageName": STUDIO, "notificationType": "SUBSCRIPTION_PURCHASED", "appUserId": "amzn-user-contract",
                          "receiptId": "amzn-receipt-" + secrets.token_hex(4), "relatedReceipts": {}, "timestamp": int(time.time() * 1000),
                          "betaProductTransaction": False})
    signed = control("sns/sign", {"Type": "Notification", "Message": message})
    c.call("POST", "/commerce/{app}/amazon/notifications", 200, params=app, raw=json.dumps(signed), media_type="text/plain")
    c.call("POST", "/commerce/{app}/amazon/notifications", 200, params=app, raw=json.dumps(signed), media_type="text/plain",
           note="the same MessageId")
    forged = dict(signed, Message=message.replace("PURCHASED", "CANCELLED"))
    c.call("POST", "/commerce/{app}/amazon/notifications", 403, params=app, raw=json.dumps(forged), media_type="text/plain")
    c.call("POST", "/commerce/{app}/amazon/notifications", 400, params=app, raw="not an SNS message", media_type="text/plain")
    c.call("POST", "/commerce/{app}/amazon/notifications", 404, params={"app": "org.example.none"}, raw=json.dumps(signed),
           media_type="text/plain")

    key_path = os.path.join(work, "roku-key")
    with open(key_path, "w") as handle:
        handle.write(json.load(open(os.path.join(work, "fakes", "secrets.json")))["roku"] + "\n")
    souk(souk_bin, "stores", "set", "--app", STUDIO, "--store", "roku", "--partner-api-key-path", key_path)
    later = int(time.time() * 1000) + 30 * 86_400_000
    control("roku/transaction", {"transactionId": "roku-contract-1", "productId": "studio-monthly", "isEntitled": True, "cancelled": False,
                                 "purchaseStatus": "Active", "expirationDate": f"/Date({later}+0000)/", "quantity": 1})
    push = {"transactionType": "Sale", "transactionId": "roku-contract-1", "productCode": "studio-monthly", "responseKey": secrets.token_hex(16)}
    deadline = time.time() + 10   # the store settings reach the server with the catalog refresh
    while True:
        answer = c.http.post(f"{c.base}/commerce/{STUDIO}/roku/notifications", json=dict(push, responseKey="probe"), timeout=30)
        if answer.status_code != 400 or time.time() > deadline:
            break
        time.sleep(0.2)
    ack = c.call("POST", "/commerce/{app}/roku/notifications", 200, params=app, json_body=push)
    expect(ack.text == push["responseKey"] and ack.headers.get("ApiKey"), "Roku's acknowledgement: the responseKey and ApiKey")
    answer = c.call("POST", "/commerce/{app}/roku/notifications", 400, params=app,
                    json_body=dict(push, transactionId="roku-fishing", responseKey=secrets.token_hex(16)))
    expect("ApiKey" not in answer.headers, "a refused Roku notification carries no key")
    c.call("POST", "/commerce/{app}/roku/notifications", 404, params={"app": "org.example.none"}, json_body=push)


def flows_developer(c, buyer, souk_bin, work):
    """The developer API (docs/developers.md): an organisation made with the CLI releases a version with one upload,
    creates and applies its catalog, grants, reads its sales and manages a webhook; other keys and ids are refused."""
    import zipfile
    developer, item, version, app = "openapi-dev", "6446009001", "8009000001", "org.souk.openapi.dev"
    souk(souk_bin, "developers", "add", "--name", "OpenAPI Developer", "--id", developer)
    souk(souk_bin, "apps", "create", "--apple-item-id", item, "--bundle-id", app, "--name", "OpenAPI Dev", "--developer", developer)
    key = souk(souk_bin, "developers", "keys", "create", "--developer", developer, "--scopes",
               "packages:write,catalog:write,purchases:read,grants:write,webhooks:write", "--name", "ci").strip()
    narrow = souk(souk_bin, "developers", "keys", "create", "--developer", developer, "--scopes", "metrics:read").strip()
    expect(key.startswith("sk_") and "\n" not in key, "keys create prints the key alone")
    auth = bearer(key)
    c.call("GET", "/api/v1/developer/apps", 401, note="no key")
    c.call("GET", "/api/v1/developer/apps", 401, headers=bearer("sk_" + secrets.token_hex(20)), note="an unknown key")
    folder = os.path.join(work, "developer-package")
    souk(souk_bin, "packages", "make-sample", "--apple-item-id", item, "--apple-version-id", version, "--bundle-id", app,
         "--short-version", "1.0", "--bundle-version", "1", "--min-os", "17.0", "--variant-size", "20000", "--out", folder)
    package = os.path.join(work, "developer-package.zip")
    with zipfile.ZipFile(package, "w") as archive:
        for root, _, files in os.walk(folder):
            for name in files:
                archive.write(os.path.join(root, name), os.path.relpath(os.path.join(root, name), folder))
    body = open(package, "rb").read()
    upload = {"appleItemId": item, "appleVersionId": version}
    path = "/api/v1/developer/apps/{appleItemId}/versions/{appleVersionId}/package"
    c.call("PUT", path, 403, params=upload, raw=body, media_type="application/zip", headers=bearer(narrow), note="a key without packages:write")
    first = c.call("PUT", path, 201, params=upload, raw=body, media_type="application/zip", headers=auth).json()
    expect(first["reviewState"] == "in_review", f"a developer's upload waits in review: {first}")
    c.call("PUT", path, 201, params=upload, raw=body, media_type="application/zip", headers=auth, note="the same package again")
    c.call("PUT", path, 422, params={"appleItemId": item, "appleVersionId": "8009000002"}, raw=body, media_type="application/zip",
           headers=auth, note="a package of another version")
    c.call("PUT", path, 404, params={"appleItemId": NOTES, "appleVersionId": version}, raw=body, media_type="application/zip",
           headers=auth, note="the marketplace's own app")
    c.call("GET", "/api/v1/developer/apps", 200, headers=auth)
    c.call("GET", "/api/v1/developer/apps/{appleItemId}/versions", 200, params={"appleItemId": item}, headers=auth)
    c.call("GET", "/api/v1/developer/apps/{appleItemId}/versions", 404, params={"appleItemId": NOTES}, headers=auth)

    catalog = {"app": app, "allowSandbox": True, "entitlements": [{"id": "pro", "title": "Pro"}],
               "products": [{"id": "dev.pro", "type": "non-consumable", "title": {"en-US": "Pro"},
                             "prices": [{"currency": "USD", "amount": 199}], "entitlements": ["pro"],
                             "skus": {"apple_store": app + ".pro"}}]}
    capp = {"app": app}
    c.call("PUT", "/api/v1/developer/catalogs/{app}", 200, params=capp, query={"dryRun": "true"}, json_body=catalog, headers=auth)
    c.call("GET", "/api/v1/developer/catalogs/{app}", 404, params=capp, headers=auth, note="a dry run made nothing")
    c.call("PUT", "/api/v1/developer/catalogs/{app}", 200, params=capp, json_body=catalog, headers=auth)
    c.call("PUT", "/api/v1/developer/catalogs/{app}", 422, params=capp, json_body={**catalog, "products": [{"id": "x"}]}, headers=auth)
    c.call("PUT", "/api/v1/developer/catalogs/{app}", 404, params={"app": STUDIO}, json_body={**catalog, "app": STUDIO}, headers=auth,
           note="the marketplace's own catalog")
    c.call("GET", "/api/v1/developer/catalogs/{app}", 200, params=capp, headers=auth)

    token = c.call("GET", "/commerce/{app}/account-token", 200, params=capp, headers=bearer(buyer)).json()["accountToken"]
    grants = "/api/v1/developer/catalogs/{app}/grants"
    grant = c.call("POST", grants, 201, params=capp, json_body={"accountToken": token, "entitlement": "pro", "until": "2099-01-01"},
                   headers=auth).json()
    c.call("POST", grants, 422, params=capp, json_body={"accountToken": str(uuid.uuid4()), "entitlement": "pro"}, headers=auth)
    c.call("POST", grants, 403, params=capp, json_body={"accountToken": token, "entitlement": "pro"}, headers=bearer(narrow))
    for list_path in ("/api/v1/developer/catalogs/{app}/purchases", "/api/v1/developer/catalogs/{app}/events"):
        page = c.call("GET", list_path, 200, params=capp, query={"limit": "1"}, headers=auth).json()
        if page["nextCursor"]:
            c.call("GET", list_path, 200, params=capp, query={"limit": "1", "cursor": page["nextCursor"]}, headers=auth)
        c.call("GET", list_path, 400, params=capp, query={"cursor": "not-a-cursor"}, headers=auth)
        c.call("GET", list_path, 404, params={"app": STUDIO}, headers=auth)
    # The raw exports (docs/metrics.md, "Exports"): streamed CSV or JSON Lines of the organisation's own app.
    exports, window = "/api/v1/developer/exports/{kind}", {"app": app, "from": "2020-01-01", "to": "2099-12-31"}
    csv_export = c.call("GET", exports, 200, params={"kind": "purchases"}, query={**window, "format": "csv"}, headers=auth)
    expect(csv_export.text.startswith("recorded_at,app,store,"), f"a CSV export starts with its header: {csv_export.text[:200]}")
    c.call("GET", exports, 200, params={"kind": "events"}, query={**window, "format": "jsonl"}, headers=auth)
    c.call("GET", exports, 400, params={"kind": "purchases"}, query={**window, "from": "2026-02-30", "format": "csv"}, headers=auth)
    c.call("GET", exports, 404, params={"kind": "purchases"}, query={**window, "app": STUDIO, "format": "csv"}, headers=auth)
    c.call("GET", exports, 403, params={"kind": "events"}, query={**window, "format": "jsonl"}, headers=bearer(narrow))
    c.call("DELETE", "/api/v1/developer/grants/{grantId}", 204, params={"grantId": grant["id"]}, headers=auth)
    c.call("DELETE", "/api/v1/developer/grants/{grantId}", 404, params={"grantId": str(uuid.uuid4())}, headers=auth)

    hooks = "/api/v1/developer/catalogs/{app}/webhooks"
    hook = c.call("POST", hooks, 201, params=capp, json_body={"url": "https://hooks.example.com/openapi-dev",
                                                             "secret": secrets.token_hex(16)}, headers=auth).json()
    c.call("POST", hooks, 422, params=capp, json_body={"url": "https://hooks.example.com/x", "secret": "short"}, headers=auth)
    c.call("GET", hooks, 200, params=capp, headers=auth)
    c.call("GET", hooks, 404, params={"app": STUDIO}, headers=auth)
    c.call("DELETE", "/api/v1/developer/webhooks/{webhookId}", 204, params={"webhookId": hook["id"]}, headers=auth)
    c.call("DELETE", "/api/v1/developer/webhooks/{webhookId}", 404, params={"webhookId": hook["id"]}, headers=auth)

    # Metrics from the daily rollup (docs/metrics.md): the app's own with metrics:read, by day and by week.
    souk(souk_bin, "metrics", "rebuild", "--app", app)
    metrics, today = "/api/v1/developer/metrics", time.strftime("%Y-%m-%d", time.gmtime())
    mq = {"app": app, "metric": "mrr", "from": today, "to": today}
    c.call("GET", metrics, 200, query=mq, headers=bearer(narrow))
    c.call("GET", metrics, 200, query={**mq, "metric": "churned", "interval": "week"}, headers=bearer(narrow))
    c.call("GET", metrics, 403, query=mq, headers=auth, note="a key without metrics:read")
    c.call("GET", metrics, 404, query={**mq, "app": STUDIO}, headers=bearer(narrow), note="another organisation's app")
    c.call("GET", metrics, 400, query={**mq, "metric": "nope"}, headers=bearer(narrow))
    c.call("GET", metrics, 422, query={**mq, "from": "2099-01-01"}, headers=bearer(narrow), note="from after to")
    # Filters (docs/metrics.md, "Filters"): one of store, product or country; a combination is refused.
    c.call("GET", metrics, 200, query={**mq, "country": "DEU", "environment": "sandbox"}, headers=bearer(narrow))
    c.call("GET", metrics, 200, query={**mq, "store": "apple_store"}, headers=bearer(narrow))
    c.call("GET", metrics, 400, query={**mq, "store": "apple_store", "country": "DE"}, headers=bearer(narrow),
           note="a combination the rollup does not keep")
    return key, app, item


def contract(base, spec_path, souk_bin, work):
    c = Contract(base, spec_path)
    served_document = c.http.get(f"{base}/openapi.json", timeout=10).status_code == 200
    if served_document:
        document = c.call("GET", "/openapi.json", 200)
        c.call("GET", "/openapi.json", 304, headers={"If-None-Match": document.headers["ETag"]})
    buyer, other = flows_oauth(c, souk_bin, work)
    flows_marketplace_kit(c, buyer, other)
    flows_licenses(c, buyer, other)
    flows_selling(c, buyer, other)
    flows_marketplace_app(c, buyer, other)
    flows_webhooks(c)
    flows_catalog(c)
    chain = flows_commerce(c, buyer, other, work)
    flows_content(c, buyer, other)
    rtdn = flows_notifications(c, chain, souk_bin, work)
    flows_offers(c, buyer, other, souk_bin, work)
    flows_app_transaction(c, chain, buyer)
    flows_push_notifications(c, souk_bin, work)
    flows_developer(c, buyer, souk_bin, work)
    c.report(served_document)
    ctx = base64.urlsafe_b64encode(json.dumps({"access_token": buyer}).encode()).decode().rstrip("=")
    with open(os.path.join(work, "fuzz.env"), "w") as handle:
        handle.write(f"SOUK_FUZZ_TOKEN={buyer}\nSOUK_FUZZ_CTX={ctx}\nSOUK_FUZZ_RTDN_TOKEN={rtdn}\n")


# MARK: outage

def outage(base, spec_path, souk_bin, work):
    """With the database stopped under a running server, every operation answers what the document says:
    a 503 problem with Retry-After where it needs storage, its usual answer where memory suffices, never a 500."""
    c = Contract(base, spec_path, outage=True)
    password = secrets.token_hex(16)
    souk(souk_bin, "accounts", "create", "--email", "outage@example.com", "--password", password)
    token, _ = sign_in(c, "outage@example.com", password, "openapi-outage")
    cc = load("commerce_check", "scripts/commerce-check.py")
    chain = cc.load_chain(os.path.join(work, "chain"))
    market = load("license_check", "scripts/license-check.py").Marketplace(base)
    request, key = market.seal(json.dumps({"requestId": 1, "deviceId": "ab", "action": "create", "appleItemIds": [NOTES]}).encode())
    license_body = {"licenseRequest": request, "licenseKey": key, "appsById": {NOTES: {"appleVersionId": NEW_NOTES}}}
    apps = {"apps": [{"appleItemId": NOTES, "appleVersionId": OLD_NOTES}], "platform": "iOS", "osVersion": "17.4"}
    c.call("POST", "/marketplace-kit/v1/updates", 200, json_body=apps)   # what is kept in memory is read once
    c.call("GET", "/commerce/{app}/products_v1.json", 200, params={"app": STUDIO})
    subprocess.run([os.path.join(ROOT, "scripts", "postgres.sh"), "stop"], check=True)
    time.sleep(1.5)   # past the one-second caches
    app, auth = {"app": STUDIO}, bearer(token)
    stripe = json.dumps({"id": "evt_1", "type": "customer.subscription.deleted", "created": int(time.time()),
                         "data": {"object": {"id": "sub_1", "status": "canceled", "cancel_at_period_end": False}}}).encode()
    asc = json.dumps({"data": {"type": "WebhookPingCreated", "id": str(uuid.uuid4())}}).encode()
    note = chain.sign({"notificationType": "TEST", "notificationUUID": str(uuid.uuid4()), "version": "2.0",
                       "signedDate": int(time.time() * 1000), "data": {"bundleId": STUDIO, "environment": "Sandbox"}})
    calls = [
        ("GET", "/health", {}), ("GET", "/health/ready", {}), ("GET", "/.well-known/marketplace-kit", {}), ("GET", "/.well-known/jwks.json", {}),
        ("POST", "/marketplace-kit/v1/updates", {"json_body": apps}),
        ("POST", "/marketplace-kit/v1/restore", {"json_body": apps, "headers": auth}),
        ("POST", "/marketplace-kit/v1/license", {"json_body": license_body}),
        ("POST", "/oauth/token", {"form": {"grant_type": "refresh_token", "refresh_token": "srt_x", "client_id": "openapi-outage"}}),
        ("POST", "/oauth/revoke", {"form": {"token": "srt_x"}}),
        ("GET", "/api/v1/account", {"headers": auth}), ("GET", "/api/v1/purchases", {"headers": auth}),
        ("POST", "/api/v1/checkout", {"json_body": {"appleItemId": SKETCH}, "headers": auth}),
        ("POST", "/webhooks/stripe", {"raw": stripe, "media_type": "application/json",
                                      "headers": {"Stripe-Signature": stripe_header(stripe, os.environ["SOUK_STRIPE_WEBHOOK_SECRET"])}}),
        ("POST", "/webhooks/app-store-connect", {"raw": asc, "media_type": "application/json", "headers": {
            "x-apple-signature": "hmacsha256=" + hmac.new(os.environ["SOUK_ASC_WEBHOOK_SECRET"].encode(), asc, hashlib.sha256).hexdigest()}}),
        ("GET", "/commerce/{app}/products_v1.json", {"params": app}), ("GET", "/commerce/{app}/products", {"params": app}),
        ("GET", "/commerce/{app}/entitlements", {"params": app, "headers": auth}),
        ("GET", "/commerce/{app}/customer", {"params": app, "headers": auth}),
        ("POST", "/commerce/{app}/consume", {"params": app, "headers": auth, "json_body": {"productId": "studio.credits.50"}}),
        ("GET", "/commerce/{app}/content/{productId}/manifest.json", {"params": {**app, "productId": "studio.brushes"}, "headers": auth}),
        ("POST", "/commerce/{app}/apple/notifications", {"params": app, "json_body": {"signedPayload": note}}),
        # A developer key cannot be checked without the database: 503, never 401.
        ("GET", "/api/v1/developer/apps", {"headers": bearer("sk_" + "0" * 43)}),
    ]
    answers = {}
    for method, template, kwargs in calls:
        answer = c.call(method, template, None, note="database down", **kwargs)
        answers[f"{method} {template}"] = answer.status_code
        expect(answer.status_code != 503 or answer.headers.get("Retry-After"), f"{method} {template}: a 503 of an outage without Retry-After")
    for needs_storage in ("GET /health", "GET /health/ready", "GET /api/v1/account", "POST /marketplace-kit/v1/restore", "POST /api/v1/checkout",
                          "GET /api/v1/developer/apps"):
        expect(answers[needs_storage] == 503, f"{needs_storage} with the database down answered {answers[needs_storage]}, not 503")
    unavailable = sorted(k for k, v in answers.items() if v == 503)
    memory = ", ".join(f"{k} {v}" for k, v in sorted(answers.items()) if v != 503)
    print(f"{NAME}: outage: {len(answers)} operations with the database down, all as documented: "
          f"{len(unavailable)} answered 503 with Retry-After; from memory: {memory or 'none'}")


if __name__ == "__main__":
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else (None, [])
    if command == "lint" and len(args) == 1:
        lint(*args)
    elif command == "routes" and len(args) == 2:
        routes(*args)
    elif command == "served" and len(args) == 2:
        served(*args)
    elif command == "contract" and len(args) == 4:
        contract(*args)
    elif command == "outage" and len(args) == 4:
        outage(*args)
    elif command == "fakes-prepare" and len(args) == 1:
        fakes_prepare(*args)
    else:
        fail(__doc__)
