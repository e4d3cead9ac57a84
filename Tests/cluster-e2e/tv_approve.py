"""Approves a TV's sign-in in Chromium, as a person does: /activate on the marketplace (through
nginx in scripts/e2e-cluster.sh), sign in, type the code the TV shows, approve. Exits 0 once the
page says the TV is signed in; 3 when selenium is not installed (the caller decides whether that
skips or fails): Chromium or its driver missing too.

    python3 tv_approve.py BASE EMAIL PASSWORD USER_CODE
"""

import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "browser"))

try:
    from selenium.webdriver.common.by import By
    from souk_browser import chromium_missing, new_chromium
except ImportError as error:
    print(f"tv_approve: selenium is not installed ({error})", file=sys.stderr)
    sys.exit(3)
if chromium_missing():
    print(f"tv_approve: {chromium_missing()}", file=sys.stderr)
    sys.exit(3)


def wait_for(condition, what, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise SystemExit(f"tv_approve: timed out waiting for {what}")


def main():
    base, email, password, code = sys.argv[1:5]
    driver = new_chromium()
    try:
        path = lambda: urllib.parse.urlsplit(driver.current_url).path
        driver.get(f"{base}/activate")
        wait_for(lambda: path() == "/signin", "the sign-in page before /activate")
        driver.find_element(By.ID, "email").send_keys(email)
        driver.find_element(By.ID, "password").send_keys(password)
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_for(lambda: path() == "/activate", "/activate after signing in")
        driver.find_element(By.ID, "user_code").send_keys(code)
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_for(lambda: "Approve" in driver.page_source, "the confirmation naming the client")
        driver.find_element(By.XPATH, "//button[normalize-space()='Approve']").click()
        wait_for(lambda: "is signed in" in driver.page_source, "the page saying the TV is signed in")
        errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        if errors:
            raise SystemExit(f"tv_approve: the browser console shows errors: {errors}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
