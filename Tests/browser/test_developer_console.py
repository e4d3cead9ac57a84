"""A developer's day in Chromium, on the second server of scripts/browser-tests.sh (two-factor
sign-in required for both consoles). The script made it with the real `souk` commands: the
organisation "Browser Studio" (`souk developers add`) with developer@souk.example as its owner
(`developers member add`), its paid app 6446000888 (`apps create --developer`, `apps set-price`)
with 1.1 released (`packages import`), its in-app catalog SOUK_BROWSER_DEVELOPER_APP (`catalog
apply`, `catalog set-developer`), an operator and a customer (`accounts create`).

The developer turns two-factor sign-in on, signs in again with the password and a recovery code,
edits the app's text and uploads 1.2, which waits in review; the operator, in a browser of their own,
turns two-factor sign-in on, opens the review queue, reads the version's facts and diff and approves
it, and the storefront offers 1.2. The developer applies a catalog edit after reviewing its diff,
opens its grants, purchases and webhooks, seals a Roku key (only its hint is shown), makes an API key; a customer buys the app through the
checkout; the developer sees the sale by account token and reads this month's payout statement.
Every page passes Browsers.check (stylesheet, clean console, no CSP violation, axe, a screenshot)."""

import json
import os
import re
import tempfile
import time
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import Server
from souk_browser import sign_in_on_website, wait_for
from test_console import heading, path_of, submit, totp

ITEM = "6446000888"
RELEASED = "8000000887"
UPLOADED = "8000000888"


@pytest.fixture
def developer(signup_server):
    return Server(signup_server, os.environ["SOUK_BROWSER_DEVELOPER_EMAIL"], os.environ["SOUK_BROWSER_DEVELOPER_PASSWORD"])


@pytest.fixture
def review_operator(signup_server):
    return Server(signup_server, os.environ["SOUK_BROWSER_REVIEW_OPERATOR_EMAIL"], os.environ["SOUK_BROWSER_REVIEW_OPERATOR_PASSWORD"])


@pytest.fixture
def buyer(signup_server):
    return Server(signup_server, os.environ["SOUK_BROWSER_BUYER_EMAIL"], os.environ["SOUK_BROWSER_BUYER_PASSWORD"])


def sign_in(driver, browsers, person, next_path, step):
    driver.get(f"{person.base}/signin?next={urllib.parse.quote(next_path, safe='')}")
    browsers.check(driver, step)
    driver.find_element(By.ID, "email").send_keys(person.email)
    driver.find_element(By.ID, "password").send_keys(person.password)
    submit(driver, "Sign in")


def enrol(driver, browsers, step):
    """Turns two-factor sign-in on from the enrolment page; answers the ten recovery codes."""
    secret = re.search(r"Secret \(base32\): <code>([A-Z2-7]+)</code>", driver.page_source).group(1)
    driver.find_element(By.ID, "totp-code").send_keys(totp(secret, time.time()))
    submit(driver, "Turn on two-factor sign-in")
    wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "main ul li code")) == 10, "the recovery codes")
    browsers.check(driver, step)
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, "main ul li code")]


def latest_version(base):
    with urllib.request.urlopen(f"{base}/api/v1/apps/{ITEM}", timeout=30) as response:
        return (json.load(response).get("latestVersion") or {}).get("appleVersionId")


def history(driver, base):
    driver.get(f"{base}/apps/{ITEM}")
    return driver.find_element(By.TAG_NAME, "main").text


def test_a_developers_day_from_two_factor_sign_in_through_review_to_a_payout_statement(browsers, developer, review_operator, buyer):
    driver = browsers.chromium()
    base = developer.base
    app = os.environ["SOUK_BROWSER_DEVELOPER_APP"]

    # Two-factor sign-in is required: until it is on, only the enrolment page opens.
    sign_in(driver, browsers, developer, "/developer", "signin")
    wait_for(lambda: path_of(driver) == "/developer/security", "the enrolment page")
    assert "needs two-factor sign-in" in driver.page_source
    assert not driver.find_elements(By.CSS_SELECTOR, "nav.console a[href='/developer/keys']")
    browsers.check(driver, "enrolment")
    codes = enrol(driver, browsers, "recovery-codes")

    # A new browser session: the password, then the second factor (a recovery code: the authenticator's
    # code of this time step was taken by the enrolment).
    driver.delete_all_cookies()
    sign_in(driver, browsers, developer, "/developer", "signin-again")
    wait_for(lambda: path_of(driver) == "/signin/code", "the code step")
    browsers.check(driver, "code-step")
    driver.find_element(By.ID, "code").send_keys(codes[0])
    submit(driver, "Continue")
    wait_for(lambda: path_of(driver) == "/developer", "the developer console after the code")
    assert "Browser Studio" in heading(driver)
    browsers.check(driver, "home")

    # The app: its storefront text, then a package upload that waits in review.
    driver.find_element(By.LINK_TEXT, "Studio Upload").click()
    wait_for(lambda: path_of(driver) == f"/developer/apps/{ITEM}", "the app's page")
    browsers.check(driver, "app")
    driver.find_element(By.ID, "app-subtitle").send_keys("Made by Browser Studio")
    submit(driver, "Save text")
    wait_for(lambda: "done=details" in driver.current_url, "the text saved")
    assert driver.find_element(By.ID, "app-subtitle").get_attribute("value") == "Made by Browser Studio"
    driver.find_element(By.ID, "package-file").send_keys(os.environ["SOUK_BROWSER_DEVELOPER_PACKAGE_ZIP"])
    submit(driver, "Upload")
    wait_for(lambda: f"imported={UPLOADED}" in driver.current_url, "the page naming the uploaded version", timeout=60)
    notice = driver.find_element(By.CSS_SELECTOR, "[role=status].notice").text
    assert f"Uploaded version 1.2 (12, AppleVersionID {UPLOADED})" in notice and "in review" in notice, notice
    assert [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, ".version-state")][0] == "in review"
    browsers.check(driver, "version-in-review")

    # In review, the storefront still offers 1.1 only.
    shown = history(driver, base)
    assert "1.1 (11) · released" in shown and "1.2 (12)" not in shown, shown
    browsers.check(driver, "storefront-app-in-review")
    assert latest_version(base) == RELEASED

    # The operator, in a browser of their own, turns two-factor sign-in on and approves the version.
    desk = browsers.chromium()
    sign_in(desk, browsers, review_operator, "/admin/review", "operator-signin")
    wait_for(lambda: path_of(desk) == "/admin/security", "the operator's enrolment page")
    enrol(desk, browsers, "operator-enrolled")
    desk.get(f"{base}/admin/review")
    browsers.check(desk, "review-queue")
    desk.find_element(By.CSS_SELECTOR, f"a[href='/admin/review/{ITEM}/{UPLOADED}']").click()
    wait_for(lambda: path_of(desk) == f"/admin/review/{ITEM}/{UPLOADED}", "the version's review page")
    facts = desk.find_element(By.CSS_SELECTOR, "dl.facts").text
    assert "1.2 (bundle version 12)" in facts and "ios 17.4" in facts, facts
    diff = desk.find_element(By.CSS_SELECTOR, "pre.diff")
    removed = [element.text for element in diff.find_elements(By.TAG_NAME, "del")]
    added = [element.text for element in diff.find_elements(By.TAG_NAME, "ins")]
    assert "− short version: 1.1" in removed and "+ short version: 1.2" in added, (removed, added)
    assert "− minimum ios: 17.0" in removed and "+ minimum ios: 17.4" in added, (removed, added)
    browsers.check(desk, "review-version")
    submit(desk, "Approve and release")
    wait_for(lambda: path_of(desk) == "/admin/review", "the queue after approving")
    assert "Version released." in desk.find_element(By.CSS_SELECTOR, "[role=status].notice").text
    assert f"/admin/review/{ITEM}/{UPLOADED}" not in desk.page_source
    browsers.check(desk, "review-approved")

    # Every index catches up within a catalog refresh: the app page and the update check offer 1.2.
    wait_for(lambda: "1.2 (12) · released" in history(driver, base), "1.2 on the storefront's app page")
    browsers.check(driver, "storefront-app-approved")
    wait_for(lambda: latest_version(base) == UPLOADED, "1.2 as the API's latest version")

    # The in-app catalog: edit the file, review the diff, apply.
    driver.get(f"{base}/developer")
    driver.find_element(By.LINK_TEXT, app).click()
    wait_for(lambda: path_of(driver) == f"/developer/catalog/{app}", "the catalog page")
    assert "4.99 USD" in driver.page_source
    browsers.check(driver, "catalog")
    driver.execute_script("const area = document.getElementById('catalog-text');"
                          "area.value = area.value.replace('\"amount\": 499', '\"amount\": 599');")
    submit(driver, "Review changes")
    wait_for(lambda: "Review changes to" in heading(driver), "the review page")
    summary = driver.find_elements(By.CSS_SELECTOR, "pre.diff")[0].text
    assert "studio.pro" in summary, summary
    browsers.check(driver, "catalog-review")
    submit(driver, "Apply these changes")
    wait_for(lambda: "done=applied" in driver.current_url, "the catalog applied")
    assert "5.99 USD" in driver.page_source
    browsers.check(driver, "catalog-applied")
    # Its promotional grants and purchases (people by account token); none yet, the forms ready.
    driver.find_element(By.LINK_TEXT, "Promotional grants").click()
    wait_for(lambda: path_of(driver) == f"/developer/catalog/{app}/grants", "the grants page")
    assert driver.find_element(By.ID, "grant-entitlement").text == "pro"
    browsers.check(driver, "grants")
    driver.get(f"{base}/developer/catalog/{app}/purchases")
    assert "No purchases yet." in driver.page_source
    browsers.check(driver, "purchases")
    # A webhook: the console makes its secret and shows it once.
    driver.get(f"{base}/developer/catalog/{app}")
    driver.find_element(By.LINK_TEXT, "Webhooks").click()
    wait_for(lambda: path_of(driver) == f"/developer/catalog/{app}/webhooks", "the webhooks page")
    browsers.check(driver, "webhooks")
    driver.find_element(By.ID, "webhook-url").send_keys("https://hooks.example.com/studio")
    submit(driver, "Add webhook")
    wait_for(lambda: driver.find_elements(By.ID, "new-secret"), "the new webhook's secret")
    assert "https://hooks.example.com/studio" in driver.find_element(By.TAG_NAME, "main").text
    browsers.check(driver, "webhook-added")

    # A store credential, uploaded and sealed: the page shows its hint, never the secret.
    roku_key = "ROKU-BROWSER-PARTNER-KEY-7f3a9c"
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as key_file:
        key_file.write(roku_key)
    driver.get(f"{base}/developer/catalog/{app}/credentials")
    browsers.check(driver, "credentials")
    Select(driver.find_element(By.ID, "credential-kind")).select_by_value("roku/partner-api-key")
    driver.find_element(By.ID, "credential-file").send_keys(key_file.name)
    submit(driver, "Seal and save")
    wait_for(lambda: "done=set" in driver.current_url, "the credential sealed")
    assert driver.find_element(By.CSS_SELECTOR, ".credential-hint").text == "ends with " + roku_key[-4:]
    assert roku_key not in driver.page_source
    browsers.check(driver, "credential-set")
    os.unlink(key_file.name)

    # An API key, shown once.
    driver.get(f"{base}/developer/keys")
    browsers.check(driver, "keys")
    driver.find_element(By.ID, "key-name").send_keys("CI")
    driver.find_element(By.ID, "scope-packages-write").click()
    submit(driver, "Make key")
    wait_for(lambda: driver.find_elements(By.ID, "new-key"), "the new key")
    assert driver.find_element(By.ID, "new-key").text.startswith("sk_")
    browsers.check(driver, "key-made")

    # A customer buys the app through the marketplace's checkout (the development processor).
    shop = browsers.chromium()
    sign_in_on_website(shop, base, buyer.email, buyer.password)
    browsers.check(shop, "buyer-account")
    shop.get(f"{base}/apps/{ITEM}")
    browsers.check(shop, "storefront-app-for-sale")
    button = shop.find_element(By.CSS_SELECTOR, "button[type=submit]")
    assert button.text == "Buy for 4.99 USD", button.text
    button.click()
    wait_for(lambda: "order=" in shop.current_url, "the app page after buying")
    assert shop.find_element(By.CSS_SELECTOR, "button[type=submit]").text == "Install"
    browsers.check(shop, "bought")

    # The developer sees the sale, the buyer by account token, and reads the statement of the month it
    # was paid in (this month's, unless the month turned between the sale and now).
    driver.get(f"{base}/developer")
    driver.find_element(By.LINK_TEXT, "Sales").click()
    wait_for(lambda: path_of(driver) == "/developer/sales", "the sales page")
    sales = driver.find_element(By.TAG_NAME, "main").text
    assert "Studio Upload" in sales and "4.99 USD" in sales and buyer.email not in sales, sales
    assert re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sales), sales
    paid_month = re.search(r"([0-9]{4}-[0-9]{2})-[0-9]{2}T[0-9:]+ UTC", sales).group(1)
    browsers.check(driver, "sales")
    driver.find_element(By.LINK_TEXT, "Statements").click()
    wait_for(lambda: re.fullmatch(r"/developer/statements/[0-9]{4}-[0-9]{2}", path_of(driver)), "this month's statement")
    if path_of(driver) != f"/developer/statements/{paid_month}":
        driver.get(f"{base}/developer/statements/{paid_month}")
    statement = driver.find_element(By.TAG_NAME, "main").text
    assert f"Statement of Browser Studio, {paid_month}" in statement, statement
    row = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "main table tbody tr td")]
    # One sale of 4.99 USD, nothing refunded; the marketplace's 15 % of 4.99 is 0.75 (half-up), the payout 4.24.
    assert row == ["USD", "1", "4.99 USD", "0.00 USD (0)", "4.99 USD", "0.75 USD", "4.24 USD"], row
    link = driver.find_element(By.LINK_TEXT, "Download as CSV").get_attribute("href")
    assert urllib.parse.urlsplit(link).path == f"/developer/statements/{paid_month}/csv", link
    browsers.check(driver, "statement")
    # The CSV, with this browser's session: the same line.
    cookies = "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(link, headers={"Cookie": cookies}), timeout=30) as response:
        csv = response.read().decode()
    assert f"{paid_month},browser-studio,USD,1,4.99,0,0.00,4.99,15,0.75,4.24\r\n" in csv, csv

    # The metrics page of the organisation's catalog: the form, a chart and the table of its 30 days.
    driver.find_element(By.LINK_TEXT, "Metrics").click()
    wait_for(lambda: path_of(driver) == "/developer/metrics", "the metrics page")
    assert driver.find_elements(By.CSS_SELECTOR, "main figure svg[role=img] title"), driver.page_source
    assert len(driver.find_elements(By.CSS_SELECTOR, "main figure table tbody tr")) == 30
    # Below the chart, the cohort table (a paid app's sale is no subscription: no cohort yet, and the page says so).
    assert driver.find_element(By.ID, "cohorts-heading").text == "Retention by cohort"
    cohorts = driver.find_elements(By.CSS_SELECTOR, "main table#table-cohorts")
    assert cohorts or "No account of this app has paid" in driver.find_element(By.TAG_NAME, "main").text
    for table in cohorts:
        assert table.find_element(By.TAG_NAME, "caption").text.startswith("Subscription retention by cohort of ")
    assert "cohorts" in [option.get_attribute("value") for option in driver.find_elements(By.CSS_SELECTOR, "#export-kind option")]
    browsers.check(driver, "metrics")
    # One filter (docs/metrics.md, "Filters"): the sandbox, chosen in the form and sent by GET; it stays chosen.
    Select(driver.find_element(By.ID, "metrics-environment")).select_by_value("sandbox")
    submit(driver, "Show")
    wait_for(lambda: "environment=sandbox" in driver.current_url, "the metrics of the sandbox")
    assert Select(driver.find_element(By.ID, "metrics-environment")).first_selected_option.get_attribute("value") == "sandbox"
    assert "(sandbox)" in driver.find_element(By.CSS_SELECTOR, "main figure details summary").text, driver.page_source
    assert len(driver.find_elements(By.CSS_SELECTOR, "main figure table tbody tr")) == 30
    browsers.check(driver, "metrics-filtered")
