"""The developer console (/developer) in Chromium, on the second server of scripts/browser-tests.sh
(two-factor sign-in required). Its setup (developer_setup.py) made the organisation "Browser Studio"
with developer@souk.example as its owner, app 6446000888 and the in-app catalog
SOUK_BROWSER_DEVELOPER_APP. The developer turns two-factor sign-in on, signs in again with the
password and a recovery code, edits the app's text, uploads a version that waits in review, applies
a catalog edit after reviewing its diff, opens its grants and purchases, seals a store credential, and makes an API key. Every page passes Browsers.check."""

import os
import re
import tempfile
import time
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import Server
from souk_browser import wait_for
from test_console import heading, path_of, submit, totp

ITEM = "6446000888"
VERSION = "8000000888"


@pytest.fixture
def developer(signup_server):
    return Server(signup_server, os.environ["SOUK_BROWSER_DEVELOPER_EMAIL"], os.environ["SOUK_BROWSER_DEVELOPER_PASSWORD"])


def sign_in(driver, developer, next_path):
    driver.get(f"{developer.base}/signin?next={urllib.parse.quote(next_path, safe='')}")
    driver.find_element(By.ID, "email").send_keys(developer.email)
    driver.find_element(By.ID, "password").send_keys(developer.password)
    submit(driver, "Sign in")


def test_a_developer_signs_in_with_two_factor_uploads_a_version_into_review_and_applies_a_catalog(browsers, developer):
    driver = browsers.chromium()
    app = os.environ["SOUK_BROWSER_DEVELOPER_APP"]

    # Two-factor sign-in is required: until it is on, only the enrolment page opens.
    sign_in(driver, developer, "/developer")
    wait_for(lambda: path_of(driver) == "/developer/security", "the enrolment page")
    assert "needs two-factor sign-in" in driver.page_source
    assert not driver.find_elements(By.CSS_SELECTOR, "nav.console a[href='/developer/keys']")
    browsers.check(driver, "enrolment")
    secret = re.search(r"Secret \(base32\): <code>([A-Z2-7]+)</code>", driver.page_source).group(1)
    driver.find_element(By.ID, "totp-code").send_keys(totp(secret, time.time()))
    submit(driver, "Turn on two-factor sign-in")
    wait_for(lambda: "Recovery codes" in heading(driver), "the recovery codes")
    codes = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "main ul li code")]
    assert len(codes) == 10
    browsers.check(driver, "recovery-codes")

    # A new browser session: the password, then the second factor (a recovery code: the authenticator's
    # code of this time step was taken by the enrolment).
    driver.delete_all_cookies()
    sign_in(driver, developer, "/developer")
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
    wait_for(lambda: f"imported={VERSION}" in driver.current_url, "the page naming the uploaded version", timeout=60)
    notice = driver.find_element(By.CSS_SELECTOR, "[role=status].notice").text
    assert f"Uploaded version 1.2 (12, AppleVersionID {VERSION})" in notice and "in review" in notice, notice
    assert [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, ".version-state")] == ["in review"]
    browsers.check(driver, "version-in-review")

    # The in-app catalog: edit the file, review the diff, apply.
    driver.get(f"{developer.base}/developer")
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
    driver.get(f"{developer.base}/developer/catalog/{app}/purchases")
    assert "No purchases yet." in driver.page_source
    browsers.check(driver, "purchases")

    # A store credential, uploaded and sealed: the page shows its hint, never the secret.
    roku_key = "ROKU-BROWSER-PARTNER-KEY-7f3a9c"
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as key_file:
        key_file.write(roku_key)
    driver.get(f"{developer.base}/developer/catalog/{app}/credentials")
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
    driver.get(f"{developer.base}/developer/keys")
    browsers.check(driver, "keys")
    driver.find_element(By.ID, "key-name").send_keys("CI")
    driver.find_element(By.ID, "scope-packages-write").click()
    submit(driver, "Make key")
    wait_for(lambda: driver.find_elements(By.ID, "new-key"), "the new key")
    assert driver.find_element(By.ID, "new-key").text.startswith("sk_")
    browsers.check(driver, "key-made")
