"""Fixtures of Souk's real-browser tests. scripts/browser-tests.sh starts the servers and sets:

SOUK_BROWSER_BASE            a `souk serve --demo` (sign-up closed)
SOUK_BROWSER_EMAIL/_PASSWORD its demo account
SOUK_BROWSER_RETRY_EMAIL/_PASSWORD an account of the same server for the wrong-password test
SOUK_BROWSER_SIGNUP_BASE     a second `souk serve --demo` with SOUK_SIGN_UP=true and SOUK_CONSOLE_REQUIRES_TWO_FACTOR=true
SOUK_BROWSER_SIGNUP_OPERATOR_PASSWORD the password of that server's demo operator (operator@souk.example)
SOUK_BROWSER_OPERATOR_EMAIL/_PASSWORD an operator of the first server (the console's walk)
SOUK_BROWSER_SUPPORT_EMAIL/_PASSWORD a support account of the first server (the reset link)
SOUK_BROWSER_RESET_EMAIL/_PASSWORD a customer of the first server whose password support resets
SOUK_BROWSER_PACKAGE_ZIP     a package zip of app 6446000777 (org.souk.browser.console) to upload
SOUK_BROWSER_TV_CLIENT       the client_id of a registered `tv` client ("Browser TV")
SOUK_BROWSER_OUTPUT          where screenshots go

A browser that is not installed skips its tests, loudly; with CI=true it fails them.
"""

import json
import os
import warnings
from dataclasses import dataclass

import pytest

import souk_browser

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@dataclass
class Server:
    base: str
    email: str
    password: str


@pytest.fixture(scope="session")
def server():
    return Server(os.environ["SOUK_BROWSER_BASE"], os.environ["SOUK_BROWSER_EMAIL"], os.environ["SOUK_BROWSER_PASSWORD"])


@pytest.fixture(scope="session")
def retry_server():
    """The same server, signed in to with an account whose failed attempts slow nobody else down."""
    return Server(os.environ["SOUK_BROWSER_BASE"], os.environ["SOUK_BROWSER_RETRY_EMAIL"], os.environ["SOUK_BROWSER_RETRY_PASSWORD"])


@pytest.fixture(scope="session")
def operator():
    return Server(os.environ["SOUK_BROWSER_BASE"], os.environ["SOUK_BROWSER_OPERATOR_EMAIL"], os.environ["SOUK_BROWSER_OPERATOR_PASSWORD"])


@pytest.fixture(scope="session")
def support():
    return Server(os.environ["SOUK_BROWSER_BASE"], os.environ["SOUK_BROWSER_SUPPORT_EMAIL"], os.environ["SOUK_BROWSER_SUPPORT_PASSWORD"])


@pytest.fixture(scope="session")
def reset_person():
    """A customer of the first server whose password the reset test replaces (nobody else signs in as it)."""
    return Server(os.environ["SOUK_BROWSER_BASE"], os.environ["SOUK_BROWSER_RESET_EMAIL"], os.environ["SOUK_BROWSER_RESET_PASSWORD"])


@pytest.fixture(scope="session")
def enrolling_operator():
    """The second server's demo operator, who must turn two-factor sign-in on before the console opens."""
    return Server(os.environ["SOUK_BROWSER_SIGNUP_BASE"], "operator@souk.example", os.environ["SOUK_BROWSER_SIGNUP_OPERATOR_PASSWORD"])


@pytest.fixture(scope="session")
def signup_server():
    return os.environ["SOUK_BROWSER_SIGNUP_BASE"]


@pytest.fixture(scope="session")
def output():
    return os.environ.get("SOUK_BROWSER_OUTPUT", os.path.join(os.getcwd(), "test-output", "browser"))


_AXE = []


def axe():
    """axe-core's source, read once; without it the accessibility check is skipped loudly (failed in CI)."""
    if not _AXE:
        _AXE.append(souk_browser.axe_source())
        if _AXE[0] is None:
            reason = f"axe-core is not installed (pip install --no-deps {souk_browser.AXE_PACKAGE})"
            if IN_CI:
                pytest.fail(f"CI=true but {reason}", pytrace=False)
            warnings.warn(f"⚠️  {reason}: accessibility checks are SKIPPED")
    return _AXE[0]


def _unavailable(reason):
    if IN_CI:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(f"⚠️  SKIPPED: {reason}")


class Browsers:
    """Opens fresh browser sessions for one test and closes them all afterwards."""

    def __init__(self, output, test_name):
        self.output = output
        self.test_name = test_name
        self.open = []

    def chromium(self):
        reason = souk_browser.chromium_missing()
        if reason:
            _unavailable(reason)
        driver = souk_browser.new_chromium()
        self.open.append(driver)
        return driver

    def webkit(self):
        reason = souk_browser.webkit_missing()
        if reason:
            _unavailable(reason)
        driver = souk_browser.new_webkit()
        self.open.append(driver)
        return driver

    def screenshot(self, driver, step):
        return souk_browser.screenshot(driver, self.output, f"{self.test_name}-{step}")

    def check(self, driver, step, expected_status=None):
        """Every page a test visits: Souk's stylesheet applied, a clean console (Chromium), no serious
        or critical accessibility violation (axe-core 4.x in Chromium), and a screenshot kept."""
        assert souk_browser.layout_style_applied(driver), f"{step}: Souk's stylesheet was not applied (blocked by style-src?)"
        if driver.souk_engine == "chromium":
            souk_browser.assert_clean_console(driver, step, expected_status)
            source = axe()
            if source:
                violations = souk_browser.accessibility_violations(driver, source)
                assert not violations, f"{step}: accessibility violations: {json.dumps(violations, indent=1)}"
        else:
            souk_browser.watch_violations(driver)
        self.screenshot(driver, step)

    def close(self, failed):
        for number, driver in enumerate(self.open):
            if failed:
                try:
                    self.screenshot(driver, f"FAILED-{number}")
                except Exception:
                    pass
            try:
                driver.quit()
            except Exception:
                pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.souk_failed = report.failed


@pytest.fixture
def browsers(request, output):
    opened = Browsers(output, request.node.name.replace("[", "-").replace("]", ""))
    yield opened
    opened.close(getattr(request.node, "souk_failed", False))
