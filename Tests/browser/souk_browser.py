"""Helpers for Souk's real-browser tests: start Chromium and WebKit, read what they saw, talk OAuth.

Chromium (Debian `chromium` + `chromium-driver`) runs headless through /usr/bin/chromedriver;
WebKit is WebKitGTK's MiniBrowser driven by WebKitWebDriver (Debian `webkit2gtk-driver`), which
needs an X display (scripts/browser-tests.sh runs pytest under `xvfb-run`).
"""

import base64
import glob
import hashlib
import json
import os
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By

DEVICE_SCHEME = "app-distribution-oauth:"
INSTALL_SCHEME = "marketplace-kit:"
CHROMIUM = os.environ.get("SOUK_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SOUK_CHROMEDRIVER", "/usr/bin/chromedriver")
WEBKIT_DRIVER = os.environ.get("SOUK_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")


def minibrowser():
    """WebKitGTK's MiniBrowser (shipped in libwebkit2gtk-4.1-0 on Debian 12), or None."""
    if os.environ.get("SOUK_MINIBROWSER"):
        return os.environ["SOUK_MINIBROWSER"]
    found = sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser") + glob.glob("/usr/libexec/webkit2gtk-4.*/MiniBrowser"))
    return found[-1] if found else None


def chromium_missing():
    """Why Chromium cannot run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    return None


def webkit_missing():
    """Why WebKit cannot run here, or None."""
    if not (os.path.isfile(WEBKIT_DRIVER) and os.access(WEBKIT_DRIVER, os.X_OK)):
        return f"{WEBKIT_DRIVER} is not installed (apt-get install webkit2gtk-driver)"
    if minibrowser() is None:
        return "WebKitGTK's MiniBrowser is not installed (apt-get install libwebkit2gtk-4.1-0)"
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return "no display for WebKitGTK: run under xvfb-run (apt-get install xvfb)"
    return None


def new_chromium():
    """A fresh headless Chromium session that records its console and its network events.

    A fresh session per flow: after Chromium hands a navigation to an outside scheme
    (`app-distribution-oauth:`, `marketplace-kit:`), its tab stops taking input.
    """
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=900,1000", "--no-first-run", "--password-store=basic"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.souk_engine = "chromium"
    driver.souk_events = []    # performance-log messages read so far
    driver.souk_console = []   # console entries read so far
    return driver


def new_webkit():
    """A fresh WebKitGTK MiniBrowser session (needs a display; see module doc)."""
    from selenium.webdriver.webkitgtk.service import Service
    options = webdriver.WebKitGTKOptions()
    options.binary_location = minibrowser()
    options.add_argument("--automation")
    driver = webdriver.WebKitGTK(service=Service(WEBKIT_DRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.souk_engine = "webkit"
    return driver


# MARK: What the browser saw

def read_chromium_logs(driver):
    """Moves Chromium's new console entries and network events into the driver's lists."""
    driver.souk_console.extend(driver.get_log("browser"))
    for entry in driver.get_log("performance"):
        driver.souk_events.append(json.loads(entry["message"])["message"])


def console_problems(driver, expected_status=None):
    """Every console entry so far that is an error or mentions the Content Security Policy.
    Chromium logs a page answered with an error status as "Failed to load resource"; a test that
    asks for such a page on purpose names the status it expects."""
    read_chromium_logs(driver)
    expected = f"Failed to load resource: the server responded with a status of {expected_status} "
    return [f"{entry['level']} {entry['message']}" for entry in driver.souk_console
            if (entry["level"] == "SEVERE" or "Content Security Policy" in entry["message"])
            and not (expected_status and entry.get("source") == "network" and expected in entry["message"])]


def assert_clean_console(driver, step, expected_status=None):
    """No problem in the console since the previous check (whose entries are then set aside)."""
    problems = console_problems(driver, expected_status)
    driver.souk_console.clear()
    assert not problems, f"{step}: the browser console shows problems:\n" + "\n".join(problems)


def redirects_to(driver, prefix):
    """URLs starting with `prefix` that Chromium was redirected to (a `Network.requestWillBeSent`
    with a `redirectResponse`: Chromium followed the 302). When the Content Security Policy
    blocks the redirect, only the 302's Location header is seen, never such an event."""
    read_chromium_logs(driver)
    return [event["params"]["request"]["url"] for event in driver.souk_events
            if event["method"] == "Network.requestWillBeSent" and "redirectResponse" in event["params"]
            and event["params"]["request"]["url"].startswith(prefix)]


def navigations_to(driver, prefix):
    """URLs starting with `prefix` that the page asked Chromium to navigate to (a link followed)."""
    read_chromium_logs(driver)
    urls = []
    for event in driver.souk_events:
        if event["method"] in ("Page.frameRequestedNavigation", "Page.frameStartedNavigating"):
            urls.append(event["params"].get("url", ""))
        elif event["method"] == "Network.requestWillBeSent":
            urls.append(event["params"]["request"]["url"])
    return [url for url in urls if url.startswith(prefix)]


# What ChromeDriver says when an element or script context it was given belongs to a page that a
# navigation has just replaced. Besides StaleElementReferenceException it sometimes answers
# "unknown error: unhandled inspector error: Node with given id does not belong to the document".
PAGE_REPLACED = ("does not belong to the document", "No node with given id",
                 "Execution context was destroyed", "Cannot find context with specified id")


def page_replaced(error):
    """Whether a WebDriver error only says the page changed under the read (a navigation)."""
    if isinstance(error, StaleElementReferenceException):
        return True
    return isinstance(error, WebDriverException) and any(text in (error.msg or "") for text in PAGE_REPLACED)


def wait_for(condition, what, timeout=15):
    """`condition()` once it is truthy; a read that a navigation interrupted counts as "not yet"."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except WebDriverException as error:
            if not page_replaced(error):
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def wait_for_device_redirect(driver, timeout=15):
    """The `app-distribution-oauth:?…` URL the browser was sent to after the form, or a failure
    naming what the browser showed instead. Chromium: its network events; WebKit: its current URL
    (WebKitGTK follows the redirect and shows "Redirection to URL with a scheme that is not
    HTTP(S)" with the device URL as the current URL; a blocked one stays on the form)."""
    def seen():
        if driver.souk_engine == "chromium":
            found = redirects_to(driver, DEVICE_SCHEME)
            return found[-1] if found else None
        url = driver.current_url
        return url if url.startswith(DEVICE_SCHEME) else None
    try:
        return wait_for(seen, f"the redirect to {DEVICE_SCHEME}", timeout)
    except AssertionError as error:
        details = console_problems(driver) if driver.souk_engine == "chromium" else webkit_violations(driver)
        raise AssertionError(f"{error}; the browser stayed on {driver.current_url}; it reported: {details}") from None


def webkit_violations(driver):
    """`securitypolicyviolation` events seen since `watch_violations` (WebKitWebDriver has no log)."""
    try:
        return driver.execute_script("return window.__soukViolations || null")
    except Exception as error:  # the document is gone: it was navigated away from
        return f"(page replaced: {type(error).__name__})"


def watch_violations(driver):
    """Records the page's Content Security Policy violations from now on (WebKit)."""
    driver.execute_script("""
        window.__soukViolations = [];
        document.addEventListener('securitypolicyviolation',
            e => window.__soukViolations.push(e.violatedDirective + ' blocked ' + e.blockedURI));""")


def layout_style_applied(driver):
    """True when Souk's stylesheet took effect (a style blocked by the policy does not)."""
    return driver.execute_script("return getComputedStyle(document.querySelector('main')).maxWidth") not in ("", "none")


# MARK: Accessibility

AXE_PACKAGE = "axe_playwright_python"   # a wheel that carries axe-core 4.12's axe.min.js (.ci/run installs it --no-deps)


def axe_source():
    """axe-core's `axe.min.js`, or None when the wheel is not installed. Only the script is used
    (injected through WebDriver); the package's own Python, which needs Playwright, is never imported."""
    import importlib.util
    spec = importlib.util.find_spec(AXE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "axe.min.js")
    return open(path, encoding="utf-8").read() if os.path.exists(path) else None


AXE_RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def accessibility_violations(driver, source):
    """axe-core's serious and critical violations of WCAG 2.1 A/AA (and best practices) on the page."""
    driver.execute_script(source)
    found = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})
          .then(r => done({version: axe.version, violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(0, 2).join(' '))}))}))
          .catch(e => done({version: 'error', violations: [{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]}));
        """, AXE_RULES)
    assert found["version"].startswith("4."), f"axe-core 4.x expected, got {found['version']}"
    return [v for v in found["violations"] if v["impact"] in ("serious", "critical")]


def screenshot(driver, output, name):
    os.makedirs(output, exist_ok=True)
    path = os.path.join(output, f"{name}.png")
    driver.save_screenshot(path)
    return path


# MARK: OAuth

def pkce_pair():
    """(verifier, S256 challenge) as RFC 7636 §4.1–4.2 define them."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(base, client_id, state, challenge, login_hint=None):
    """The authorization request MarketplaceKit opens (README, MarketplaceKit's “Reauthenticating a person”)."""
    query = {"client_id": client_id, "response_type": "code", "redirect_uri": "app-distribution-oauth://",
             "code_challenge": challenge, "code_challenge_method": "S256", "state": state}
    if login_hint:
        query["login_hint"] = login_hint
    return f"{base}/oauth/authorize?{urllib.parse.urlencode(query)}"


def device_answer(url):
    """The query items of `app-distribution-oauth:?code=…&state=…`."""
    return dict(urllib.parse.parse_qsl(url.split("?", 1)[1])) if "?" in url else {}


def post_form(url, fields):
    """(status, JSON body) of a form POST."""
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode(),
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def exchange_code(base, code, verifier, client_id):
    """Redeems the code at the token endpoint, as the device does next."""
    return post_form(f"{base}/oauth/token", {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                                             "client_id": client_id, "redirect_uri": "app-distribution-oauth://"})


def refresh(base, refresh_token, client_id):
    return post_form(f"{base}/oauth/token", {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id})


def fetch(url):
    """(status, body bytes) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# MARK: Pages

def sign_in_on_website(driver, base, email, password):
    """Signs in at /signin; the browser then holds a website session."""
    driver.get(f"{base}/signin")
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: urllib.parse.urlsplit(driver.current_url).path == "/account", "the account page after signing in")


def sign_in_device(driver, base, email, password, client_id):
    """The whole device sign-in in `driver` (a fresh session; it is unusable afterwards in
    Chromium): the authorize URL, the password, the redirect to the device, the code redeemed.
    Returns the token answer."""
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(12)
    driver.get(authorize_url(base, client_id, state, challenge, login_hint=email))
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    answer = device_answer(wait_for_device_redirect(driver))
    assert answer.get("state") == state
    status, tokens = exchange_code(base, answer.get("code", ""), verifier, client_id)
    assert status == 200, f"the token endpoint refused the code: {tokens}"
    return tokens
