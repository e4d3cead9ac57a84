"""The operator console in Chromium, as an operator walks it: sign in, see every dashboard
chart (revenue at zero before any sale), turn on TOTP and sign in again with a code, add an app and
upload its package with the progress bar, see it in the storefront, have a catalog over 1 MiB
refused (413), edit a product through the catalog's diff, find a person (their timeline) and grant
an entitlement, read the audit log (the old and new price), and open the integrations. Every step passes Browsers.check (style, clean console, axe-core, screenshot)."""

import base64
import hashlib
import hmac
import os
import re
import struct
import time
import urllib.parse

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import souk_browser
from souk_browser import wait_for

ITEM = "6446000777"  # the package scripts/browser-tests.sh made (org.souk.browser.console, 3.1)


def path_of(driver):
    return urllib.parse.urlsplit(driver.current_url).path


def totp(secret_base32, at):
    """RFC 6238 (SHA-1, 6 digits, 30 s), written here rather than taken from Souk."""
    key = base64.b32decode(secret_base32 + "=" * (-len(secret_base32) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


def heading(driver):
    """The page's h1 text, or "" while a navigation replaces the page."""
    try:
        return " ".join(element.text for element in driver.find_elements(By.TAG_NAME, "h1"))
    except WebDriverException as error:
        if not souk_browser.page_replaced(error):
            raise
        return ""


def submit(driver, label):
    driver.find_element(By.XPATH, f"//button[normalize-space()='{label}']").click()


def test_an_operator_runs_the_marketplace_from_the_console(browsers, operator, server):
    driver = browsers.chromium()
    # Signed out, the console sends the operator to sign in and back.
    driver.get(f"{operator.base}/admin/people")
    wait_for(lambda: path_of(driver) == "/signin", "the sign-in page")
    driver.find_element(By.ID, "email").send_keys(operator.email)
    driver.find_element(By.ID, "password").send_keys(operator.password)
    submit(driver, "Sign in")
    wait_for(lambda: path_of(driver) == "/admin/people", "the console after signing in")
    driver.get(f"{operator.base}/admin")
    assert "Licenses issued" in driver.page_source and "<svg" in driver.page_source
    # Every chart is drawn, empty or not: before any sale, the revenue chart at zero with its table.
    revenue = driver.find_element(By.ID, "chart-revenue-title").find_element(By.XPATH, "ancestor::figure")
    assert "No sales in these 30 days" in revenue.text, revenue.text
    assert len(revenue.find_elements(By.CSS_SELECTOR, "table#table-revenue tbody tr")) == 30
    browsers.check(driver, "dashboard")
    driver.execute_script("arguments[0].scrollIntoView()", revenue)
    browsers.screenshot(driver, "dashboard-revenue")
    # The metrics page: any app (the marketplace's own plans at least), a chart and its table of 30 days.
    driver.get(f"{operator.base}/admin/metrics")
    assert driver.find_elements(By.CSS_SELECTOR, "main figure svg[role=img] title"), driver.page_source
    assert len(driver.find_elements(By.CSS_SELECTOR, "main figure table tbody tr")) == 30
    # Below the chart, the cohort table: a captioned table with row and column headers, or the note that no one paid yet.
    assert driver.find_element(By.ID, "cohorts-heading").text == "Retention by cohort"
    cohorts = driver.find_elements(By.CSS_SELECTOR, "main table#table-cohorts")
    if cohorts:
        assert cohorts[0].find_element(By.TAG_NAME, "caption").text.startswith("Subscription retention by cohort of ")
        assert cohorts[0].find_elements(By.CSS_SELECTOR, "tbody th[scope=row]") and cohorts[0].find_elements(By.CSS_SELECTOR, "td[class^=heat-]")
    else:
        assert "No account of this app has paid" in driver.find_element(By.TAG_NAME, "main").text
    browsers.check(driver, "metrics")

    # Two-factor sign-in: the setup key, a code, ten recovery codes shown once.
    driver.get(f"{operator.base}/admin/security")
    secret = re.search(r"Secret \(base32\): <code>([A-Z2-7]+)</code>", driver.page_source).group(1)
    browsers.check(driver, "totp-setup")
    driver.find_element(By.ID, "totp-code").send_keys(totp(secret, time.time()))
    submit(driver, "Turn on two-factor sign-in")
    wait_for(lambda: "Recovery codes" in heading(driver), "the recovery codes")
    assert len(driver.find_elements(By.CSS_SELECTOR, "main ul li code")) == 10
    browsers.check(driver, "totp-recovery-codes")

    # A new browser session now needs the code after the password (the next time step: each code is taken once).
    driver.delete_all_cookies()
    driver.get(f"{operator.base}/signin?next=%2Fadmin%2Fapps")
    driver.find_element(By.ID, "email").send_keys(operator.email)
    driver.find_element(By.ID, "password").send_keys(operator.password)
    submit(driver, "Sign in")
    wait_for(lambda: path_of(driver) == "/signin/code", "the code step")
    browsers.check(driver, "totp-code-step")
    driver.find_element(By.ID, "code").send_keys(totp(secret, time.time() + 30))
    submit(driver, "Continue")
    wait_for(lambda: path_of(driver) == "/admin/apps", "the apps page after the code")
    browsers.check(driver, "apps")

    # Add an app, then upload its package from the browser; the page names the imported version.
    driver.find_element(By.ID, "new-item").send_keys(ITEM)
    driver.find_element(By.ID, "new-bundle").send_keys("org.souk.browser.console")
    driver.find_element(By.ID, "new-name").send_keys("Console Upload")
    driver.find_element(By.ID, "new-developer").send_keys("Souk Browser Tests")
    submit(driver, "Add app")
    wait_for(lambda: path_of(driver) == f"/admin/apps/{ITEM}", "the new app's page")
    assert driver.find_element(By.TAG_NAME, "progress") is not None
    browsers.check(driver, "app-created")
    driver.find_element(By.ID, "package-file").send_keys(os.environ["SOUK_BROWSER_PACKAGE_ZIP"])
    submit(driver, "Upload and import")
    wait_for(lambda: "imported=8000000777" in driver.current_url, "the page naming the imported version", timeout=60)
    notice = driver.find_element(By.CSS_SELECTOR, "[role=status].notice").text
    assert "Imported version 3.1 (31, AppleVersionID 8000000777)" in notice, notice
    browsers.check(driver, "package-imported")

    # The storefront shows it (its index catches up within a second).
    def listed():
        driver.get(f"{operator.base}/search?q=console+upload")
        return "Console Upload" in driver.page_source
    wait_for(listed, "the new app in the storefront's search")
    browsers.check(driver, "storefront-search")
    driver.get(f"{operator.base}/apps/{ITEM}")
    assert "Console Upload" in driver.find_element(By.TAG_NAME, "h1").text
    browsers.check(driver, "storefront-app")

    # A catalog over 1 MiB is refused with a page that says so (413), not as an expired form.
    driver.get(f"{operator.base}/admin/catalog/org.souk.demo.studio")
    browsers.check(driver, "catalog")
    driver.execute_script("const area = document.getElementById('catalog-text');"
                          "area.value = area.value.replace('{', '{' + ' '.repeat(1100000));")
    submit(driver, "Review changes")
    wait_for(lambda: "Catalog too large" in heading(driver), "the page saying the catalog is too large")
    assert "larger than 1 MiB" in driver.page_source and "expired" not in driver.page_source
    browsers.check(driver, "catalog-too-large", expected_status=413)

    # Edit a product: its JSON, the diff, then apply.
    driver.get(f"{operator.base}/admin/catalog/org.souk.demo.studio")
    driver.find_element(By.LINK_TEXT, "studio.brushes").click()
    wait_for(lambda: path_of(driver).endswith("/products/studio.brushes"), "the product page")
    area = driver.find_element(By.ID, "product-text")
    text = area.get_attribute("value")
    assert '"amount": 299' in text, text
    area.clear()
    area.send_keys(text.replace('"amount": 299', '"amount": 349'))
    browsers.check(driver, "product-edit")
    submit(driver, "Review changes")
    wait_for(lambda: "Review changes to" in heading(driver), "the review page")
    summary, file_lines = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "pre.diff")]
    assert "studio.brushes" in summary, summary
    assert '−' in file_lines and '"amount": 299' in file_lines and '+' in file_lines and '"amount": 349' in file_lines, file_lines
    browsers.check(driver, "catalog-review")
    submit(driver, "Apply these changes")
    wait_for(lambda: "done=applied" in driver.current_url, "the catalog applied")
    assert "3.49 USD" in driver.page_source
    browsers.check(driver, "catalog-applied")

    # Find a person and grant an entitlement.
    driver.get(f"{operator.base}/admin/people")
    driver.find_element(By.ID, "people-q").send_keys(server.email)
    driver.find_element(By.ID, "people-q").submit()
    # The results page, not the list it replaces (a link found on the old page goes stale).
    wait_for(lambda: "q=" in driver.current_url, "the search results")
    driver.find_element(By.LINK_TEXT, server.email).click()
    wait_for(lambda: path_of(driver).startswith("/admin/people/"), "the person's page")
    assert "Timeline" in driver.page_source and "Account created" in driver.page_source
    browsers.check(driver, "person")
    Select(driver.find_element(By.ID, "grant-app")).select_by_value("org.souk.demo.studio")
    driver.find_element(By.ID, "grant-entitlement").send_keys("brushes")
    driver.find_element(By.ID, "grant-reason").send_keys("Browser test goodwill")
    submit(driver, "Grant")
    wait_for(lambda: "Entitlement granted." in driver.page_source, "the grant's notice")
    browsers.check(driver, "granted")

    # The audit log has every change, with who made it.
    driver.get(f"{operator.base}/admin/audit")
    rows = [entry.text for entry in driver.find_elements(By.CSS_SELECTOR, "ol.audit > li")]
    for action in ("account.totp-enable", "app.create", "package.import", "catalog.apply", "entitlement.grant"):
        assert any(action in row and operator.email in row for row in rows), (action, rows[:10])
    # The price edit's entry says what changed: the old and the new price.
    changes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "ol.audit > li ul.changes > li")]
    assert "product studio.brushes: prices: 2.99 USD → 3.49 USD" in changes, changes
    browsers.check(driver, "audit-log")

    # Integrations: events, stores, webhooks and the keys, with their rotation.
    driver.get(f"{operator.base}/admin/integrations")
    assert "Install verification keys" in driver.page_source
    browsers.check(driver, "integrations")

    # On a phone-sized screen the console fits too (wide tables scroll inside their own box).
    driver.set_window_size(390, 844)
    for step, path in (("phone-dashboard", "/admin"), ("phone-app", f"/admin/apps/{ITEM}"), ("phone-audit", "/admin/audit")):
        driver.get(f"{operator.base}{path}")
        overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{path} is {overflow} px wider than a phone's screen"
        browsers.check(driver, step)
