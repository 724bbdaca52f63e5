"""Reading the last error out of an oslo.log file."""

from pathlib import Path

from conformance.processes import last_error

ENGINE_LOG = """\
2026-11-30 00:03:32.100 12566 INFO keel_heat_core.cmd.engine [-] starting
2026-11-30 00:03:32.300 12566 ERROR cotyledon._utils [-] Unhandled error
2026-11-30 00:03:32.300 12566 ERROR cotyledon._utils Traceback (most recent \
call last):
2026-11-30 00:03:32.300 12566 ERROR cotyledon._utils   File "/x/engine.py", \
line 86, in _default_backend
2026-11-30 00:03:32.300 12566 ERROR cotyledon._utils     raise RuntimeError(
2026-11-30 00:03:32.300 12566 ERROR cotyledon._utils RuntimeError: The \
engine's database backend is not available
2026-11-30 00:03:32.300 12566 ERROR cotyledon._utils
2026-11-30 00:03:35.571 9882 INFO cotyledon._service_manager [-] Caught SIGTERM
"""


def test_last_error_is_the_exception_of_the_last_error_record(
    tmp_path: Path,
) -> None:
    log = tmp_path / "engine.log"
    log.write_text(ENGINE_LOG)
    assert last_error(log) == (
        "RuntimeError: The engine's database backend is not available"
    )


def test_no_error_gives_nothing(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    log.write_text(ENGINE_LOG.splitlines()[0] + "\n")
    assert last_error(log) == ""
    assert last_error(tmp_path / "missing.log") == ""
