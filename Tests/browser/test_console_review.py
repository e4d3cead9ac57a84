"""Review before release in Chromium: an operator of its own (scripts/browser-tests.sh) opens the
review queue, opens the version waiting in review (1.1 of app 6446000888, which the script put in
review as a developer's upload does), sees the manifest's facts and their diff against 1.0, rejects
nothing without a reason, approves it, and the version appears on the storefront's app page and in
the JSON API's latest version (the update check's answer). Every page passes Browsers.check."""

import json
import os
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By

from souk_browser import wait_for

ITEM = "6446000888"
IN_REVIEW = "8000000882"


def path_of(driver):
    return urllib.parse.urlsplit(driver.current_url).path


def latest_version(base):
    with urllib.request.urlopen(f"{base}/api/v1/apps/{ITEM}", timeout=30) as response:
        return (json.load(response).get("latestVersion") or {}).get("appleVersionId")


def test_an_operator_approves_a_version_in_review_and_the_storefront_offers_it(browsers, server):
    base = server.base
    email, password = os.environ["SOUK_BROWSER_REVIEW_OPERATOR_EMAIL"], os.environ["SOUK_BROWSER_REVIEW_OPERATOR_PASSWORD"]
    driver = browsers.chromium()

    # Before the review, the storefront offers 1.0 only.
    driver.get(f"{base}/apps/{ITEM}")
    assert "Review Me" in driver.find_element(By.TAG_NAME, "h1").text
    history = driver.find_element(By.TAG_NAME, "main").text
    assert "1.0 (10) · released" in history and "1.1 (11)" not in history, history
    assert latest_version(base) == "8000000881"

    driver.get(f"{base}/signin?next=%2Fadmin%2Freview")
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
    wait_for(lambda: path_of(driver) == "/admin/review", "the review queue after signing in")
    browsers.check(driver, "review-queue")
    driver.find_element(By.CSS_SELECTOR, f"a[href='/admin/review/{ITEM}/{IN_REVIEW}']").click()
    wait_for(lambda: path_of(driver) == f"/admin/review/{ITEM}/{IN_REVIEW}", "the version's review page")
    facts = driver.find_element(By.CSS_SELECTOR, "dl.facts").text
    assert "1.1 (bundle version 11)" in facts and "ios 17.4" in facts, facts
    diff = driver.find_element(By.CSS_SELECTOR, "pre.diff")
    removed = [element.text for element in diff.find_elements(By.TAG_NAME, "del")]
    added = [element.text for element in diff.find_elements(By.TAG_NAME, "ins")]
    assert "− short version: 1.0" in removed and "+ short version: 1.1" in added, (removed, added)
    assert "− minimum ios: 17.0" in removed and "+ minimum ios: 17.4" in added, (removed, added)
    browsers.check(driver, "review-version")

    driver.find_element(By.XPATH, "//button[normalize-space()='Approve and release']").click()
    wait_for(lambda: path_of(driver) == "/admin/review", "the queue after approving")
    assert "Version released." in driver.find_element(By.CSS_SELECTOR, "[role=status].notice").text
    assert f"/admin/review/{ITEM}/{IN_REVIEW}" not in driver.page_source
    browsers.check(driver, "review-approved")

    # Every index catches up within a catalog refresh: the app page and the update check offer 1.1.
    def offered():
        driver.get(f"{base}/apps/{ITEM}")
        return "1.1 (11) · released" in driver.find_element(By.TAG_NAME, "main").text
    wait_for(offered, "1.1 on the storefront's app page")
    browsers.check(driver, "storefront-app-approved")
    wait_for(lambda: latest_version(base) == IN_REVIEW, "1.1 as the API's latest version")
