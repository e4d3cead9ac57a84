"""Two-factor sign-in required for the console (consoleRequiresTwoFactor, on for the sign-up server
of scripts/browser-tests.sh): its demo operator, signed in with the password, sees only the
enrolment page until it turns TOTP on, then the console. Every page passes Browsers.check."""

import re
import time
import urllib.parse

from selenium.webdriver.common.by import By

from souk_browser import wait_for
from test_console import totp


def path_of(driver):
    return urllib.parse.urlsplit(driver.current_url).path


def test_staff_see_only_the_enrolment_page_until_two_factor_is_on(browsers, enrolling_operator):
    driver = browsers.chromium()
    driver.get(f"{enrolling_operator.base}/signin?next=%2Fadmin%2Fpeople")
    driver.find_element(By.ID, "email").send_keys(enrolling_operator.email)
    driver.find_element(By.ID, "password").send_keys(enrolling_operator.password)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: path_of(driver) == "/admin/security", "the enrolment page instead of the people page")
    assert "Your role needs two-factor sign-in" in driver.page_source
    assert not driver.find_elements(By.CSS_SELECTOR, "nav.console a[href='/admin/people']")
    browsers.check(driver, "enrolment-required")
    # The long otpauth:// URI breaks inside itself instead of widening the page.
    overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the enrolment page is {overflow} px wider than the window"
    driver.get(f"{enrolling_operator.base}/admin/audit")
    wait_for(lambda: path_of(driver) == "/admin/security", "the enrolment page instead of the audit log")

    secret = re.search(r"Secret \(base32\): <code>([A-Z2-7]+)</code>", driver.page_source).group(1)
    driver.find_element(By.ID, "totp-code").send_keys(totp(secret, time.time()))
    driver.find_element(By.XPATH, "//button[normalize-space()='Turn on two-factor sign-in']").click()
    wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "main ul li code")) == 10, "the recovery codes")
    browsers.check(driver, "enrolled")
    driver.get(f"{enrolling_operator.base}/admin/people")
    assert path_of(driver) == "/admin/people"
    assert driver.find_elements(By.CSS_SELECTOR, "nav.console a[href='/admin/people']")
    browsers.check(driver, "console-open")
