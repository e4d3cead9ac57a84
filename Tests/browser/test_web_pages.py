"""The website's pages in Chromium: sign-up, the account page's device sign-out, the license
resolution page and the app pages. Each step checks that the layout's style applied and that the
console shows no Content Security Policy violation and no error, and keeps a screenshot."""

import json
import secrets
import urllib.parse

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from souk_browser import (INSTALL_SCHEME, assert_clean_console, fetch, navigations_to, refresh,
                          sign_in_device, sign_in_on_website, wait_for)




def path_of(driver):
    return urllib.parse.urlsplit(driver.current_url).path


def test_sign_up_creates_an_account_and_opens_its_account_page(browsers, signup_server):
    driver = browsers.chromium()
    driver.get(f"{signup_server}/signin")
    driver.find_element(By.LINK_TEXT, "Create an account").click()
    wait_for(lambda: path_of(driver) == "/signup", "the sign-up page")
    browsers.check(driver, "sign-up-form")
    email = f"browser-{secrets.token_hex(4)}@example.com"
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(secrets.token_urlsafe(12))
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: path_of(driver) == "/account", "the account page after signing up")
    assert f"Signed in as {email}" in driver.find_element(By.TAG_NAME, "body").text
    browsers.check(driver, "account-after-sign-up")


def test_account_page_signs_a_device_out(browsers, server):
    client_id = f"browser-device-{secrets.token_hex(4)}"
    tokens = sign_in_device(browsers.chromium(), server.base, server.email, server.password, client_id)
    driver = browsers.chromium()  # the first tab handed a navigation to the device: a fresh one
    sign_in_on_website(driver, server.base, server.email, server.password)
    device = next((item for item in driver.find_elements(By.CSS_SELECTOR, "li") if client_id in item.text), None)
    assert device is not None, f"{client_id} is not listed on the account page"
    browsers.check(driver, "account-with-device")
    device.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "signed-out=1" in driver.current_url, "the account page after signing the device out")
    body = driver.find_element(By.TAG_NAME, "body").text
    assert "Signed out." in body
    assert client_id not in body
    browsers.check(driver, "account-device-signed-out")
    status, answer = refresh(server.base, tokens["refresh_token"], client_id)
    assert status == 400 and answer.get("error") == "invalid_grant", f"the signed-out device could still refresh: {answer}"


def test_license_resolution_page_explains_and_leads_back_to_souk(browsers, server):
    driver = browsers.chromium()
    for step, query, status in [("resolve-account-app", f"appleItemID=6446000003&account={urllib.parse.quote(server.email)}", None),
                                ("resolve-public-app", "appleItemID=6446000001", None),
                                ("resolve-incomplete-link", "", 400)]:
        driver.get(f"{server.base}/license/resolve?{query}")
        assert driver.find_element(By.TAG_NAME, "h1").text.strip(), f"{step}: no heading"
        browsers.check(driver, step, expected_status=status)
        actions = driver.find_elements(By.CSS_SELECTOR, "main a")
        if actions:
            href = actions[0].get_attribute("href")
            assert href.startswith(server.base + "/"), f"{step}: the page leads away from Souk: {href}"
            actions[0].click()
            wait_for(lambda: driver.current_url.startswith(href.split("?")[0]), f"{step}: the page its link leads to")
            browsers.check(driver, f"{step}-followed")


def test_a_newcomer_browses_the_home_page_a_category_and_a_search(browsers, server):
    driver = browsers.chromium()
    driver.get(f"{server.base}/")
    headings = [h.text for h in driver.find_elements(By.TAG_NAME, "h2")]
    assert "Featured" in headings and "New and updated" in headings and "Categories" in headings, headings
    icons = driver.find_elements(By.CSS_SELECTOR, "main img")
    assert icons and all(img.get_attribute("naturalWidth") not in (None, "0") for img in icons), "an icon did not load"
    browsers.check(driver, "home")
    driver.find_element(By.CSS_SELECTOR, "main a[href='/categories/weather']").click()
    wait_for(lambda: path_of(driver) == "/categories/weather", "the Weather category")
    assert "Souk Weather" in driver.page_source
    browsers.check(driver, "category")
    search = driver.find_element(By.CSS_SELECTOR, "header input[type=search]")
    search.send_keys("sketch")
    search.submit()
    wait_for(lambda: path_of(driver) == "/search", "the search results")
    results = [link.text for link in driver.find_elements(By.CSS_SELECTOR, "main .card a")]
    assert results and "Souk Sketch" in results[0], results
    browsers.check(driver, "search")
    driver.find_element(By.PARTIAL_LINK_TEXT, "Souk Sketch").click()
    wait_for(lambda: path_of(driver) == "/apps/6446000004", "the app page")
    screenshots = driver.find_elements(By.CSS_SELECTOR, ".screens img")
    assert screenshots and all(img.get_attribute("naturalWidth") not in (None, "0") for img in screenshots)
    assert "Buy" in driver.page_source or "Sign in" in driver.page_source
    browsers.check(driver, "app-with-media")
    driver.get(f"{server.base}/apps/1234")
    assert "not" in driver.find_element(By.TAG_NAME, "h1").text.lower() or driver.find_elements(By.CSS_SELECTOR, "[role=alert]")
    browsers.check(driver, "not-found-page", expected_status=404)

    # The keyboard: the first Tab shows the skip link, and it leads to the main content.
    driver.get(f"{server.base}/")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    focused = driver.switch_to.active_element
    assert focused.get_attribute("class") == "skip" and focused.rect["x"] >= 0, "the skip link is not the first, visible stop"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait_for(lambda: driver.current_url.endswith("#main"), "the skip link's jump")

    # A phone-sized screen: one column, nothing wider than the screen.
    driver.set_window_size(390, 844)
    for step, path in (("phone-home", "/"), ("phone-app", "/apps/6446000004"), ("phone-search", "/search?q=souk")):
        driver.get(f"{server.base}{path}")
        overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{path} is {overflow} px wider than a phone's screen"
        browsers.check(driver, step)


def test_app_pages_lead_to_a_working_install_link(browsers, server):
    driver = browsers.chromium()
    driver.get(f"{server.base}/apps")
    names = [link.text for link in driver.find_elements(By.CSS_SELECTOR, "main li a")]
    assert "Souk Notes" in names, names
    browsers.check(driver, "catalog")
    driver.find_element(By.LINK_TEXT, "Souk Notes").click()
    wait_for(lambda: path_of(driver) == "/apps/6446000001", "the app page")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Souk Notes"
    data = json.loads(driver.find_element(By.CSS_SELECTOR, "script[type='application/ld+json']").get_attribute("textContent"))
    assert data["name"] == "Souk Notes"
    assert driver.find_element(By.LINK_TEXT, "Sign in to install")
    browsers.check(driver, "app-signed-out")

    sign_in_on_website(driver, server.base, server.email, server.password)
    driver.get(f"{server.base}/apps/6446000001")
    browsers.check(driver, "app-signed-in")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    link = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "a.install"), "the install page")[0]
    href = link.get_attribute("href")
    assert href.startswith("marketplace-kit://install?"), href
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(href).query))
    assert query.get("installVerificationToken"), href
    package = query["alternativeDistributionPackage"]
    assert package.startswith(server.base + "/packages/6446000001/"), package
    status, _ = fetch(package.rstrip("/") + "/manifest.json")
    assert status == 200, f"the install link's package has no manifest ({status})"
    browsers.check(driver, "install")
    link.click()
    wait_for(lambda: navigations_to(driver, INSTALL_SCHEME), "Chromium's attempt to open the marketplace-kit: link")
    assert_clean_console(driver, "after tapping Install")


def test_a_paid_app_is_bought_from_its_page_then_installed(browsers, server):
    """The demo's paid app (development processor: no money moves): the price shows, Buy replaces
    Install until the order is paid, and the page it comes back to offers Install."""
    driver = browsers.chromium()
    driver.get(f"{server.base}/apps/6446000004")
    assert "2.99 USD" in driver.find_element(By.CSS_SELECTOR, "p.price").text
    browsers.check(driver, "paid-app-signed-out")
    sign_in_on_website(driver, server.base, server.email, server.password)
    driver.get(f"{server.base}/apps/6446000004")
    button = driver.find_element(By.CSS_SELECTOR, "button[type=submit]")
    assert button.text == "Buy for 2.99 USD", button.text
    browsers.check(driver, "paid-app-to-buy")
    button.click()
    wait_for(lambda: "order=" in driver.current_url, "the app page after buying")
    button = driver.find_element(By.CSS_SELECTOR, "button[type=submit]")
    assert button.text == "Install", button.text
    browsers.check(driver, "paid-app-bought")
    button.click()
    link = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "a.install"), "the install page of the bought app")[0]
    assert link.get_attribute("href").startswith("marketplace-kit://install?")
    browsers.check(driver, "paid-app-install")
    driver.get(f"{server.base}/account")
    purchases = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "li") if "Souk Sketch" in item.text]
    assert purchases and "2.99 USD" in purchases[0] and "bought" in purchases[0], purchases
    browsers.check(driver, "account-with-purchase")


def test_a_person_changes_their_password_then_deletes_their_account(browsers, signup_server):
    driver = browsers.chromium()
    email, password, new = f"leaver-{secrets.token_hex(4)}@example.com", secrets.token_urlsafe(12), secrets.token_urlsafe(12)
    driver.get(f"{signup_server}/signup")
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: path_of(driver) == "/account", "the account page after signing up")
    browsers.check(driver, "account-page")
    driver.find_element(By.ID, "current-password").send_keys(password)
    driver.find_element(By.ID, "new-password").send_keys(new)
    driver.find_element(By.ID, "confirm-password").send_keys(new)
    driver.find_element(By.XPATH, "//button[text()='Change password']").click()
    wait_for(lambda: "notice=password-changed" in driver.current_url, "the password changed")
    assert "Password changed." in driver.find_element(By.CSS_SELECTOR, "[role=status]").text
    browsers.check(driver, "password-changed")
    assert "within 48 hours" in driver.find_element(By.ID, "delete").find_element(By.XPATH, "following-sibling::ul").text
    driver.find_element(By.ID, "delete-password").send_keys(new)
    driver.find_element(By.ID, "delete-confirm").click()
    driver.find_element(By.XPATH, "//button[text()='Delete my account']").click()
    wait_for(lambda: path_of(driver) == "/signin", "signed out after deleting the account")
    assert "Your account was deleted" in driver.find_element(By.CSS_SELECTOR, "[role=status]").text
    browsers.check(driver, "account-deleted")
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(new)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: any("not right" in alert.text for alert in driver.find_elements(By.CSS_SELECTOR, "[role=alert]")),
             "the deleted account cannot sign in")
    browsers.check(driver, "deleted-account-refused", expected_status=401)
