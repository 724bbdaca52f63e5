"""Turning stestr's results into outcomes, import failures included."""

from pathlib import Path

from conformance.results import FAILED, PASSED, SKIPPED, Outcome
from conformance.tempest_suite import _complete, to_outcome

F = "heat_tempest_plugin.tests.functional"


def test_to_outcome_maps_status_and_first_lines() -> None:
    ok = to_outcome("api", {"id": "a.b.test[id-1]", "status": "success"})
    assert ok == Outcome("api", "a.b.test", PASSED, "")
    skip = to_outcome(
        "functional",
        {"id": "x", "status": "skip", "details": {"reason": "no nova\n"}},
    )
    assert (skip.status, skip.reason) == (SKIPPED, "no nova")
    fail = to_outcome(
        "api",
        {
            "id": "x",
            "status": "fail",
            "details": {
                "traceback": 'Traceback (most recent call last):\n  File "'
                'g.py", line 1, in f\n    x()\nAssertionError: 500 != 201\n'
            },
        },
    )
    assert (fail.status, fail.reason) == (FAILED, "AssertionError: 500 != 201")
    stuck = to_outcome(
        "functional",
        {"id": "h.T.test_hook", "status": "inprogress", "seconds": 88.5},
    )
    assert stuck == Outcome(
        "functional",
        "h.T.test_hook",
        FAILED,
        "still running when the run was stopped",
        88.5,
    )


def test_import_failures_fail_their_modules_tests(tmp_path: Path) -> None:
    tests = [
        f"{F}.test_hooks.HooksTest.test_a[id-1]",
        f"{F}.test_hooks.HooksTest.test_b[id-2]",
        f"{F}.test_trunk.TrunkTest.test_c[id-3]",
    ]
    outcomes = [
        Outcome("functional", f"{F}.test_hooks.HooksTest.test_a", PASSED),
        Outcome(
            "functional",
            f"{F}.test_trunk.ImportFailure.test_import",
            FAILED,
            "AssertionError: importing test_trunk failed: HTTP 400",
        ),
    ]
    done = _complete(
        "functional", outcomes, tests, False, 60, tmp_path / "e.stderr"
    )
    by_id = {o.test_id: o for o in done}
    assert set(by_id) == {t.split("[")[0] for t in tests}
    assert by_id[f"{F}.test_trunk.TrunkTest.test_c"].reason.endswith(
        "HTTP 400"
    )
    assert by_id[f"{F}.test_hooks.HooksTest.test_b"].reason == (
        "not run: the run ended without reporting it (see e.stderr)"
    )


def test_deadline_and_stestr_errors_are_named(tmp_path: Path) -> None:
    tests = ["a.B.test_x"]
    cut = _complete("api", [], tests, True, 60, tmp_path / "none")
    assert cut[0].reason == "not run: the api run passed its 60s deadline"
    err = tmp_path / "api.stderr"
    err.write_text("Traceback...\nImportError: no module named gabbi\n")
    broken = _complete("api", [], tests, False, 60, err)
    assert broken[0].reason == "not run: stestr failed: Traceback..."


def test_module_run_outcomes_cover_the_inventory(tmp_path: Path) -> None:
    from conformance.module_runner import Job, Schedule
    from conformance.tempest_suite import _complete_modules

    jobs = [
        Job(f"{F}.{m}", tmp_path / f"{m}.s", tmp_path / f"{m}.e")
        for m in ("test_a", "test_b", "test_c", "test_d")
    ]
    (tmp_path / "test_d.e").write_text("Traceback\nOSError: boom\n")
    tests = [f"{F}.test_{m}.T.test_1[id-x]" for m in "abcd"]
    outcomes = [
        Outcome("functional", f"{F}.test_a.T.test_1", PASSED),
        Outcome(
            "functional",
            f"{F}.test_b.ImportFailure.test_import",
            FAILED,
            "AssertionError: importing test_b failed: HTTPBadRequest: no",
        ),
    ]
    schedule = Schedule(finished=[f"{F}.test_a", f"{F}.test_b"])
    schedule.stopped = [f"{F}.test_c"]
    schedule.finished.append(f"{F}.test_d")
    done = {
        o.test_id.split(".")[-3]: o.reason
        for o in _complete_modules(
            "functional", outcomes, tests, jobs, schedule
        )
    }
    assert done == {
        "test_a": "",
        "test_b": "AssertionError: importing test_b failed: "
        "HTTPBadRequest: no",
        "test_c": "not run: the functional run passed its deadline",
        "test_d": "not run: the module's process reported nothing: Traceback",
    }


H = "heat_integrationtests.functional"


def test_one_listed_test_reports_one_result_per_scenario(
    tmp_path: Path,
) -> None:
    from conformance.module_runner import Job, Schedule
    from conformance.tempest_suite import _complete_modules

    listed = f"{H}.test_conditional_exposure.RoleBasedExposureTest.test_x"
    outcomes = [
        Outcome("integration", f"{listed}(r_nova_flavor)", PASSED),
        Outcome("integration", f"{listed}(r_neutron_qos)", FAILED, "no"),
    ]
    module = f"{H}.test_conditional_exposure"
    jobs = [Job(module, tmp_path / "s", tmp_path / "e")]
    done = _complete_modules(
        "integration", outcomes, [listed], jobs, Schedule(finished=[module])
    )
    assert done == outcomes


def test_a_test_skipped_by_name_shows_the_harness_reason() -> None:
    def skipped(test_id: str, reason: str) -> str:
        row = {"id": test_id, "status": "skip", "details": {"reason": reason}}
        return to_outcome("integration", row).reason

    disabled = "Test disabled in conf, skipping"
    translation = f"{H}.test_translation.TestTranslation"
    assert skipped(
        f"{translation}.test_create_update_subnet_old_network", disabled
    ).startswith("absent service: needs Neutron")
    assert skipped(
        f"{H}.test_notifications.NotificationTest.test_asg_notifications",
        disabled,
    ).startswith("cannot run here:")
    # Another test disabled by the configuration, or another reason.
    assert skipped(f"{translation}.test_other", disabled) == disabled
    assert skipped(
        f"{translation}.test_create_update_subnet_old_network", "no nova"
    ) == ("no nova")
