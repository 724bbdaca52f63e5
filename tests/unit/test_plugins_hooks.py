"""Tests of the pluggy hook facade."""

import importlib.metadata as metadata
import types

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.plugins import hookimpl
from keel_heat_core.plugins import registry as reg
from tests.unit.test_plugins_registry import make_dist


@pytest.fixture
def conf(tmp_path) -> cfg.ConfigOpts:
    c = cfg.ConfigOpts()
    keel_conf.register_opts(c)
    c([], default_config_files=[])
    c.set_override("environment_dir", str(tmp_path / "env.d"))
    return c


def plugin(**funcs: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(**funcs)


def test_resource_action_runs_through_core_implementation():
    hooks = plugins.HookManager()
    hooks.check_pending()
    assert hooks.resource_action(None, "res", "CREATE", lambda: 42) == 42


def test_wrapper_sees_result_and_exception():
    seen = []

    @hookimpl(wrapper=True)
    def keel_heat_resource_action(context, resource, action, run):
        seen.append(("before", action))
        try:
            result = yield
        except RuntimeError as exc:
            seen.append(("failed", str(exc)))
            raise
        seen.append(("after", result))
        return result + 1

    hooks = plugins.HookManager()
    hooks.register(
        plugin(keel_heat_resource_action=keel_heat_resource_action), "w"
    )
    hooks.check_pending()
    assert hooks.resource_action(None, "r", "UPDATE", lambda: 1) == 2

    def boom():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        hooks.resource_action(None, "r", "DELETE", boom)
    assert seen == [
        ("before", "UPDATE"),
        ("after", 1),
        ("before", "DELETE"),
        ("failed", "no"),
    ]


def test_pre_operation_can_refuse():
    @hookimpl
    def keel_heat_stack_pre_operation(context, stack, action):
        if action == "DELETE":
            raise ValueError("protected stack")

    hooks = plugins.HookManager()
    hooks.register(
        plugin(keel_heat_stack_pre_operation=keel_heat_stack_pre_operation),
        "guard",
    )
    hooks.stack_pre_operation(None, "s", "CREATE")
    with pytest.raises(ValueError, match="protected"):
        hooks.stack_pre_operation(None, "s", "DELETE")


def test_post_operation_and_events_reach_plugins():
    calls = []

    @hookimpl
    def keel_heat_stack_post_operation(context, stack, action, status):
        calls.append((stack, action, status))

    @hookimpl
    def keel_heat_emit_event(context, event):
        calls.append(event["resource_name"])

    hooks = plugins.HookManager()
    hooks.register(
        plugin(
            keel_heat_stack_post_operation=keel_heat_stack_post_operation,
            keel_heat_emit_event=keel_heat_emit_event,
        ),
        "listener",
    )
    hooks.stack_post_operation(None, "s", "CREATE", "COMPLETE")
    hooks.emit_event(None, {"resource_name": "r1"})
    assert calls == [("s", "CREATE", "COMPLETE"), "r1"]


def test_validate_template_collects_messages():
    @hookimpl
    def keel_heat_validate_template(context, template):
        return [f"bad {template}"]

    hooks = plugins.HookManager()
    assert hooks.validate_template(None, "t") == []
    hooks.register(
        plugin(keel_heat_validate_template=keel_heat_validate_template), "v"
    )
    assert hooks.validate_template(None, "t") == ["bad t"]


def test_check_pending_rejects_misspelled_hook():
    @hookimpl
    def keel_heat_stack_pre_operatoin(context, stack, action):
        pass

    hooks = plugins.HookManager()
    hooks.register(
        plugin(keel_heat_stack_pre_operatoin=keel_heat_stack_pre_operatoin),
        "typo",
    )
    with pytest.raises(plugins.PluginError, match="pre_operatoin"):
        hooks.check_pending()


def test_global_environment_core_files_first(conf, tmp_path):
    env_dir = tmp_path / "env.d"
    env_dir.mkdir()
    (env_dir / "b.yaml").write_text("resource_registry: {B: b.yaml}\n")
    (env_dir / "a.yaml").write_text("resource_registry: {A: a.yaml}\n")
    (env_dir / "broken.yaml").write_text("- not a mapping\n")
    (env_dir / "notes.txt").write_text("ignored")

    @hookimpl
    def keel_heat_global_environment(conf):
        return [{"parameter_defaults": {"x": 1}}]

    hooks = plugins.HookManager()
    hooks.register(
        plugin(keel_heat_global_environment=keel_heat_global_environment),
        "env",
    )
    assert hooks.global_environment(conf) == [
        {"resource_registry": {"A": "a.yaml"}},
        {"resource_registry": {"B": "b.yaml"}},
        {"parameter_defaults": {"x": 1}},
    ]


def test_hooks_entry_point_of_enabled_pack_only(tmp_path, monkeypatch, conf):
    monkeypatch.syspath_prepend(str(tmp_path))
    source = (
        "from keel_heat_core.plugins import hookimpl\n"
        "@hookimpl\n"
        "def keel_heat_validate_template(context, template):\n"
        "    return ['from {name}']\n"
    )
    for name in ("p-on", "p-off"):
        mod = f"kph_{name.replace('-', '_')}"
        make_dist(
            tmp_path,
            name,
            "1",
            {reg.HOOKS: {name: mod}},
            {mod: source.format(name=name)},
        )
    conf.set_override("disabled_packs", ["p-off"], "plugins")
    loaded = plugins.load_plugins(
        conf, metadata.distributions(path=[str(tmp_path)])
    )
    assert loaded.hooks.validate_template(None, "t") == ["from p-on"]
    assert "p-on:p-on" in loaded.hooks.plugin_names


def test_broken_hooks_module_fails_start_up(tmp_path, monkeypatch, conf):
    monkeypatch.syspath_prepend(str(tmp_path))
    make_dist(tmp_path, "p", "1", {reg.HOOKS: {"p": "kph_missing_mod"}})
    with pytest.raises(plugins.PluginLoadError, match="p 1"):
        plugins.load_plugins(
            conf, metadata.distributions(path=[str(tmp_path)])
        )


def test_hooks_of_another_plugin_api_refuse_start_up(
    tmp_path, monkeypatch, conf
):
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = f"kph_future_{tmp_path.name}"
    make_dist(
        tmp_path,
        "p-future",
        "9",
        {reg.HOOKS: {"p": mod}},
        {mod: "raise AssertionError('imported')\n"},
        api_requires=">=2.0",
    )
    with pytest.raises(plugins.PluginApiVersionError) as err:
        plugins.load_plugins(
            conf, metadata.distributions(path=[str(tmp_path)])
        )
    assert "p-future 9 is refused" in str(err.value)
    assert "'>=2.0'" in str(err.value)


def test_engine_reports_reach_plugins(conf):
    calls = []

    @hookimpl
    def keel_heat_engine_start(conf, engine_id):
        calls.append(("start", engine_id))

    @hookimpl
    def keel_heat_resource_lock_conflict(
        context, stack_id, resource_name, holder
    ):
        calls.append(("conflict", stack_id, resource_name, holder))

    @hookimpl
    def keel_heat_traversal_resume(context, stack_id, traversal, reason):
        calls.append(("resume", stack_id, traversal, reason))

    hooks = plugins.HookManager()
    hooks.register(
        plugin(
            keel_heat_engine_start=keel_heat_engine_start,
            keel_heat_resource_lock_conflict=keel_heat_resource_lock_conflict,
            keel_heat_traversal_resume=keel_heat_traversal_resume,
        ),
        "observer",
    )
    hooks.check_pending()
    hooks.engine_start(conf, "e1")
    hooks.resource_lock_conflict(None, "s1", "server", "e2")
    hooks.traversal_resume(None, "s1", "t1", "engine_down")
    assert calls == [
        ("start", "e1"),
        ("conflict", "s1", "server", "e2"),
        ("resume", "s1", "t1", "engine_down"),
    ]


def test_rpc_call_reports_time_and_failure():
    seen = []

    @hookimpl
    def keel_heat_rpc_call_handled(method, seconds, failed):
        seen.append((method, seconds >= 0, failed))

    hooks = plugins.HookManager()
    hooks.register(
        plugin(keel_heat_rpc_call_handled=keel_heat_rpc_call_handled), "t"
    )
    assert hooks.rpc_call("show_stack", lambda: {"id": 1}) == {"id": 1}

    def missing():
        raise LookupError("no stack")

    with pytest.raises(LookupError):
        hooks.rpc_call("show_stack", missing)
    assert seen == [("show_stack", True, False), ("show_stack", True, True)]


def test_a_failing_observer_does_not_fail_the_engine(caplog):
    @hookimpl
    def keel_heat_rpc_call_handled(method, seconds, failed):
        raise RuntimeError("broken metrics")

    @hookimpl
    def keel_heat_stack_post_operation(context, stack, action, status):
        raise RuntimeError("broken listener")

    hooks = plugins.HookManager()
    hooks.register(
        plugin(
            keel_heat_rpc_call_handled=keel_heat_rpc_call_handled,
            keel_heat_stack_post_operation=keel_heat_stack_post_operation,
        ),
        "broken",
    )
    assert hooks.rpc_call("list_stacks", lambda: []) == []
    hooks.stack_post_operation(None, "s", "CREATE", "COMPLETE")
    assert "keel_heat_rpc_call_handled" in caplog.text
    assert "keel_heat_stack_post_operation" in caplog.text


def test_current_is_the_installed_manager():
    from keel_heat_core.plugins import hooks as hooks_mod

    before = plugins.current_hooks()
    mine = plugins.HookManager()
    try:
        plugins.install_hooks(mine)
        assert plugins.current_hooks() is mine
    finally:
        hooks_mod.install(before)
    assert plugins.current_hooks() is before
