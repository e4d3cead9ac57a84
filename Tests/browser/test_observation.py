"""The browsers' own behaviour the sign-in tests rely on, checked against a page served here (not
by Souk) so that it can be set either way: under `form-action 'self'` a form answered with a 302
to `app-distribution-oauth:` is blocked, and the tests' observation says so; with the scheme named,
the redirect is followed, and the observation sees it. If a browser update changed either half,
the sign-in tests could no longer tell a broken policy from a working one."""

import http.server
import threading

import pytest
from selenium.webdriver.common.by import By

from souk_browser import console_problems, wait_for, wait_for_device_redirect, watch_violations, webkit_violations

PAGE = (b'<!doctype html><html><head><title>form</title></head><body>'
        b'<form method="post" action="/authorize"><button type="submit">Sign in</button></form></body></html>')


class PolicyServer(http.server.BaseHTTPRequestHandler):
    form_action = "'self'"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Security-Policy", f"default-src 'none'; form-action {self.form_action}")
        self.end_headers()
        self.wfile.write(PAGE)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(302)
        self.send_header("Location", "app-distribution-oauth:?code=observed&state=s")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


@pytest.fixture
def policy_page():
    servers = []

    def serve(form_action):
        handler = type("Handler", (PolicyServer,), {"form_action": form_action})
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}/"
    yield serve
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("engine", ["chromium", "webkit"])
def test_form_action_self_blocks_the_hand_off_and_the_tests_see_it(engine, browsers, policy_page):
    driver = getattr(browsers, engine)()
    driver.get(policy_page("'self'"))
    if engine == "webkit":
        watch_violations(driver)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    with pytest.raises(AssertionError, match="timed out"):
        wait_for_device_redirect(driver, timeout=3)
    if engine == "chromium":
        assert any("form-action" in problem for problem in console_problems(driver))
    else:
        assert any("form-action" in violation for violation in wait_for(lambda: webkit_violations(driver), "a violation", 5))


@pytest.mark.parametrize("engine", ["chromium", "webkit"])
def test_naming_the_scheme_lets_the_hand_off_through_and_the_tests_see_it(engine, browsers, policy_page):
    driver = getattr(browsers, engine)()
    driver.get(policy_page("'self' app-distribution-oauth:"))
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_device_redirect(driver) == "app-distribution-oauth:?code=observed&state=s"
    if engine == "chromium":
        assert console_problems(driver) == []


def test_the_accessibility_check_sees_serious_violations(browsers):
    """The accessibility check of every Souk page can fail: on a page with an unlabelled field, an
    image without `alt` and grey-on-white text, axe-core reports them as serious or critical."""
    from conftest import axe
    from souk_browser import accessibility_violations
    source = axe()
    if source is None:
        pytest.skip("⚠️  SKIPPED: axe-core is not installed")
    driver = browsers.chromium()
    driver.get("data:text/html;charset=utf-8,<!doctype html><html><head><title>bad</title></head><body><main><h1>Bad</h1>"
               "<img src='x.png'><input type='text'><p style='color:%23bbb'>faint text</p></main></body></html>")
    found = {violation["id"] for violation in accessibility_violations(driver, source)}
    assert {"image-alt", "label", "color-contrast"} <= found, found
