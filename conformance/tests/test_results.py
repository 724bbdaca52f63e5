"""The summary: first lines, grouping, counts and the closing line."""

from pathlib import Path

from conformance.results import (
    FAILED,
    PASSED,
    SKIPPED,
    Outcome,
    Report,
    cause_of,
    exception_line,
    first_line,
    not_run,
    readable,
)

TRACEBACK = """\
Traceback (most recent call last):
  File "/x/heat_tempest_plugin/common/test.py", line 412, in _wait
    self._verify_status(stack, stack_identifier, status)
  File "/x/heat_tempest_plugin/common/test.py", line 380, in _verify
    raise exceptions.StackBuildErrorException(
heat_tempest_plugin.common.exceptions.StackBuildErrorException: Stack \
api-12345/8b2c6f0e-1d2a-4c5b-9e8f-0a1b2c3d4e5f is in CREATE_FAILED status
due to 'Resource CREATE failed'
"""


def test_exception_line_is_the_first_line_after_the_last_frame() -> None:
    line = exception_line(TRACEBACK)
    assert line.startswith("heat_tempest_plugin.common.exceptions.")
    assert line.endswith("is in CREATE_FAILED status")


def test_exception_line_of_plain_text_is_its_first_line() -> None:
    assert exception_line("\n  boom happened\nmore") == "boom happened"
    assert exception_line("") == ""


def test_cause_blurs_ids_names_and_ports() -> None:
    one = cause_of(exception_line(TRACEBACK))
    other = cause_of(
        exception_line(
            TRACEBACK.replace("12345", "99821").replace("8b2c", "1111")
        )
    )
    assert one == other
    assert "<id>" in one and "api-<n>" in one
    assert cause_of("GET http://127.0.0.1:43121/v1 refused") == (
        "GET http://127.0.0.1:<port>/v1 refused"
    )


def test_first_line_skips_blank_lines() -> None:
    assert first_line("\n\n  x  \ny") == "x"
    assert first_line("") == ""


def test_report_counts_groups_and_closes() -> None:
    report = Report()
    report.add(
        [
            Outcome("api", "a.one", PASSED),
            Outcome("api", "a.two", FAILED, "Stack api-123456 failed"),
            Outcome("api", "a.three", FAILED, "Stack api-654321 failed"),
        ]
    )
    report.add(
        [
            Outcome("functional", "f.one", SKIPPED, "neutron missing"),
            *not_run("functional", ["f.two"], "deadline"),
        ]
    )
    report.note("CFN API missing")
    text = report.render()
    assert text.splitlines()[-1] == (
        "conformance: 1 passed, 3 failed, 1 skipped"
    )
    assert "api: 1 passed, 2 failed, 0 skipped" in text
    assert "functional: 0 passed, 1 failed, 1 skipped" in text
    assert "  [2] Stack api-<n> failed" in text
    assert "  [1] not run: deadline" in text
    assert "  [1] neutron missing" in text
    assert "  - CFN API missing" in text
    # The biggest group comes first.
    assert text.index("[2] Stack") < text.index("[1] not run")


def test_report_writes_summary_and_every_test(tmp_path: Path) -> None:
    report = Report()
    report.add([Outcome("gophercloud", "TestX", FAILED, "401")])
    text = report.write(tmp_path)
    assert (tmp_path / "summary.txt").read_text() == text
    assert (tmp_path / "tests.tsv").read_text() == (
        "gophercloud\tfailed\t\tTestX\t401\n"
    )


def test_slow_tests_are_listed_slowest_first() -> None:
    report = Report()
    report.add(
        [
            Outcome("functional", "hooks", FAILED, "timeout", 310.4),
            Outcome("functional", "quick", PASSED, "", 2.0),
            Outcome("functional", "outputs", PASSED, "", 45.0),
        ]
    )
    text = report.render()
    assert "Slowest tests (over 30s):" in text
    assert text.index("310s failed  functional: hooks") < text.index(
        "45s passed  functional: outputs"
    )
    assert "quick" not in text.split("Slowest tests")[1]
    assert report.render_tests().splitlines()[0] == (
        "functional\tfailed\t310.4\thooks\ttimeout"
    )


def test_cause_blurs_heat_short_ids_but_not_words() -> None:
    assert cause_of("value 'Ext-test1-ki4k3na2bfh6' successfully") == (
        "value 'Ext-test1-<rand>' successfully"
    )


def test_big_groups_are_cut_in_the_summary() -> None:
    report = Report()
    report.add(not_run("api", [f"t{i}" for i in range(20)], "engine down"))
    text = report.render()
    assert "  [20] not run: engine down" in text
    assert "        api: t11" in text
    assert "        api: t12" not in text
    assert "... and 8 more (tests.tsv)" in text


def test_readable_shortens_a_heat_fault_inside_a_go_message() -> None:
    line = (
        "\x1b[1;31mFailure in orchestration.go, line 73: unexpected error "
        '\x1b[0m\x1b[1;33m"Bad request with: [POST http://h/v1/p/stacks], '
        'error message: {\\"code\\": 400, \\"title\\": \\"Bad Request\\", '
        '\\"explanation\\": \\"The server could not comply.\\", \\"error\\": '
        '{\\"type\\": \\"StackValidationFailed\\", \\"traceback\\": null, '
        '\\"message\\": \\"The Resource Type (OS::Neutron::SecurityGroup) '
        'could not be found.\\"}}"\x1b[0m'
    )
    assert readable(line) == (
        "Failure in orchestration.go, line 73: unexpected error "
        '"Bad request with: [POST http://h/v1/p/stacks], error message: '
        "HTTP 400 StackValidationFailed: "
        "The Resource Type (OS::Neutron::SecurityGroup) could not be found."
    )


GABBI = """\
Traceback (most recent call last):
  File "/x/gabbi/case.py", line 747, in assert_in_or_print_output
    self.fail(msg)
AssertionError: '400' not found in ['200'], response:
{
  "code": 400,
  "title": "Bad Request",
  "explanation": "The server could not comply.",
  "error": {
    "type": "NotSupported",
    "traceback": null,
    "message": "The engine call list_template_functions is not supported."
  }
}
"""


def test_gabbi_status_failures_keep_the_response_body() -> None:
    assert readable(exception_line(GABBI)) == (
        "AssertionError: '400' not found in ['200'], response: "
        "HTTP 400 NotSupported: "
        "The engine call list_template_functions is not supported."
    )


def test_readable_leaves_other_text_alone() -> None:
    assert readable("  AssertionError: 1 != 2 ") == "AssertionError: 1 != 2"
