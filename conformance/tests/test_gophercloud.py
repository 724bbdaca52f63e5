"""Reading ``go test -v`` output of the acceptance tests."""

from conformance.gophercloud_suite import Credentials, parse
from conformance.results import FAILED, PASSED, SKIPPED

OUTPUT = """\
=== RUN   TestBuildInfo
    buildinfo_test.go:21: {
          "api": {"revision": "x"}
        }
--- PASS: TestBuildInfo (0.05s)
=== RUN   TestStackTemplateWithFile
    stacks.go:96: Attempting to create stack: xyz
    stacks_test.go:167: Unable to create stack: Expected HTTP response \
code [201 202] when accessing [POST http://127.0.0.1:1/v1/p/stacks], \
but got 500 instead
--- FAIL: TestStackTemplateWithFile (0.31s)
=== RUN   TestStacksCRUD
    stacks_test.go:12: skipping for now
--- SKIP: TestStacksCRUD (0.00s)
FAIL
"""


def test_parse_gives_verdicts_and_the_last_logged_line() -> None:
    outcomes = {o.test_id: o for o in parse(OUTPUT)}
    assert outcomes["TestBuildInfo"].status == PASSED
    assert outcomes["TestBuildInfo"].reason == ""
    failed = outcomes["TestStackTemplateWithFile"]
    assert failed.status == FAILED
    assert failed.reason.startswith("Unable to create stack: Expected HTTP")
    assert failed.reason.endswith("but got 500 instead")
    assert outcomes["TestStacksCRUD"].status == SKIPPED
    assert outcomes["TestStacksCRUD"].reason == "skipping for now"


def test_parse_of_a_crash_reports_nothing() -> None:
    assert parse("panic: runtime error\n") == []


def test_credentials_are_the_os_variables() -> None:
    env = Credentials("http://ks/v3", "demo", "pw", "demo", "R").environ()
    assert env == {
        "OS_AUTH_URL": "http://ks/v3",
        "OS_USERNAME": "demo",
        "OS_PASSWORD": "pw",
        "OS_PROJECT_NAME": "demo",
        "OS_DOMAIN_ID": "default",
        "OS_REGION_NAME": "R",
    }
