"""The stack "instantiation data" of create, preview, update and validate.

Templates and environments may be objects or strings (JSON or YAML);
``template_url`` is fetched with :mod:`.template_fetch`. The texts of the
errors are Heat's.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import yaml
from oslo_config import cfg

from keel_heat_api import template_fetch
from keel_heat_api.errors import HTTPBadRequest, RequestLimitExceeded
from keel_heat_api.params import extract_int, extract_tags
from keel_heat_core import nesting

ENV_SECTIONS = (
    "parameters",
    "resource_registry",
    "parameter_defaults",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
)
VERSION_KEYS = (
    "HeatTemplateFormatVersion",
    "heat_template_version",
    "AWSTemplateFormatVersion",
)
PARAMS = (
    "stack_name",
    "template",
    "template_url",
    "parameters",
    "environment",
    "files",
    "environment_files",
    "files_container",
)

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc]
    """Safe YAML loader keeping timestamps (and dates) as strings."""


class _ExplainingLoader(yaml.SafeLoader):
    """The pure-Python loader, asked again to explain a failure."""


def _as_str(loader: Any, node: Any) -> Any:
    return loader.construct_scalar(node)


for _loader in (_Loader, _ExplainingLoader):
    _loader.add_constructor("tag:yaml.org,2002:str", _as_str)
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _as_str)


def _yaml_load(text: str | bytes) -> Any:
    """Load YAML; on an error, raise the pure-Python loader's (with the
    line, column and snippet that Heat shows), not libyaml's."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - safe base
    except yaml.YAMLError:
        return yaml.load(text, Loader=_ExplainingLoader)  # noqa: S506


def check_template_size(conf: cfg.ConfigOpts, text: str) -> None:
    """Refuse a template larger than ``max_template_size``."""
    limit = conf.max_template_size
    if len(text) > limit:
        raise RequestLimitExceeded(
            f"Template size ({len(text)} bytes) exceeds maximum allowed "
            f"size ({limit} bytes)."
        )


def simple_parse(text: str | bytes) -> dict[str, Any]:
    """Parse JSON, else YAML, into a mapping.

    :raises ValueError: for anything else.
    """
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise nesting.too_deep("The template") from None
    except ValueError:
        try:
            parsed = _yaml_load(text)
        except RecursionError:
            raise nesting.too_deep("The template") from None
        except yaml.YAMLError as err:
            raise ValueError(
                f"Error parsing template [root stack] {err}"
            ) from None
        if parsed is None:
            parsed = {}
    nesting.check(parsed, "The template")
    if not isinstance(parsed, dict):
        raise ValueError("The template is not a JSON object or YAML mapping.")
    return parsed


def parse_template(conf: cfg.ConfigOpts, text: str | bytes) -> dict[str, Any]:
    """Parse a template string, checking size and version key."""
    check_template_size(conf, str(text))
    tmpl = simple_parse(text)
    if not any(key in tmpl for key in VERSION_KEYS):
        raise ValueError("Template format version not found.")
    return tmpl


def validate_environment(env: dict[str, Any]) -> dict[str, Any]:
    """Refuse unknown or null sections."""
    for section in env:
        if section not in ENV_SECTIONS:
            raise ValueError(f'environment has wrong section "{section}"')
        if env[section] is None:
            raise ValueError(f'environment has empty section "{section}"')
    return env


def parse_environment(text: str) -> dict[str, Any]:
    """Parse an environment string (YAML)."""
    try:
        env = _yaml_load(text)
    except RecursionError:
        raise nesting.too_deep("The environment") from None
    except yaml.YAMLError as err:
        raise ValueError(str(err)) from None
    if env is None:
        env = {}
    nesting.check(env, "The environment")
    if not isinstance(env, dict):
        raise ValueError(
            "The environment is not a valid YAML mapping data type."
        )
    return validate_environment(env)


def default_for_missing(env: dict[str, Any]) -> dict[str, Any]:
    """Fill the missing sections (not the merge strategies)."""
    for section in ENV_SECTIONS[:-1]:
        if section not in env:
            empty_list = section in ("encrypted_param_names", "event_sinks")
            env[section] = [] if empty_list else {}
    return env


@contextlib.contextmanager
def parse_error_check(kind: str) -> Iterator[None]:
    """Turn a ``ValueError`` into Heat's 400 "<kind> not in valid format"."""
    try:
        yield
    except ValueError as err:
        raise HTTPBadRequest(f"{kind} not in valid format: {err}") from None


class InstantiationData:
    """What a create/preview/update/validate body asks for.

    :param conf: configuration (template size, fetch limits).
    :param data: the JSON body.
    :param patch: a PATCH (merging) update: template optional and
        ``existing`` forced on.
    """

    def __init__(
        self, conf: cfg.ConfigOpts, data: dict[str, Any], patch: bool = False
    ) -> None:
        self.conf = conf
        self.data = data
        self.patch = patch
        if patch:
            self.data["existing"] = True

    def stack_name(self) -> str:
        """Return the stack name; 400 when absent."""
        if "stack_name" not in self.data:
            raise HTTPBadRequest("No stack name specified")
        name = self.data["stack_name"]
        if not isinstance(name, str):
            raise HTTPBadRequest("The stack name must be a string.")
        return name

    def _adopt_template(self) -> dict[str, Any]:
        try:
            adopt = self.data["adopt_stack_data"]
            if not isinstance(adopt, dict):
                adopt = simple_parse(adopt)
            check_template_size(self.conf, str(adopt["template"]))
            template = adopt["template"]
        except (ValueError, KeyError, TypeError) as err:
            raise HTTPBadRequest(f"Invalid adopt data: {err}") from None
        if not isinstance(template, dict):
            raise HTTPBadRequest("Invalid adopt data: 'template'")
        return template

    def template(self) -> dict[str, Any] | None:
        """Return the template (parsed, fetched or from adopt data).

        ``None`` only for a PATCH without a template.
        """
        if "adopt_stack_data" in self.data:
            return self._adopt_template()
        text: Any = None
        if "template" in self.data:
            text = self.data["template"]
            if isinstance(text, dict):
                check_template_size(self.conf, str(text))
                return text
        elif "template_url" in self.data:
            url = str(self.data["template_url"])
            try:
                text = template_fetch.fetch(self.conf, url)
            except OSError as err:
                raise HTTPBadRequest(
                    f"Could not retrieve template: {err}"
                ) from None
        if text is None:
            if self.patch:
                return None
            raise HTTPBadRequest("No template specified")
        if not isinstance(text, str | bytes):
            raise HTTPBadRequest(
                "Template not in valid format: The template is not a JSON "
                "object or YAML mapping."
            )
        with parse_error_check("Template"):
            return parse_template(self.conf, text)

    def environment(self) -> dict[str, Any]:
        """Return the environment with ``parameters`` merged in."""
        env: dict[str, Any] = {}
        if "environment" in self.data and not self.data.get(
            "environment_files"
        ):
            raw = self.data["environment"]
            with parse_error_check("Environment"):
                if isinstance(raw, dict):
                    env = validate_environment(raw)
                elif raw is None or isinstance(raw, str):
                    env = parse_environment(raw) if raw else {}
                else:
                    raise ValueError(
                        "The environment is not a valid YAML mapping data "
                        "type."
                    )
        default_for_missing(env)
        parameters = self.data.get("parameters") or {}
        if not isinstance(parameters, dict):
            raise HTTPBadRequest("The parameters must be a JSON object.")
        if not isinstance(env["parameters"], dict):
            raise HTTPBadRequest(
                "Environment not in valid format: parameters must be a mapping"
            )
        env["parameters"].update(parameters)
        return env

    def files(self) -> dict[str, Any]:
        """Return the files (name → content)."""
        files = self.data.get("files", {})
        if files is None:
            return {}
        if not isinstance(files, dict):
            raise HTTPBadRequest("The files must be a JSON object.")
        return files

    def environment_files(self) -> list[str] | None:
        """Return the ordered environment file names, if any."""
        names = self.data.get("environment_files")
        if names is not None and not isinstance(names, list):
            raise HTTPBadRequest("environment_files must be a list.")
        return names

    def files_container(self) -> str | None:
        """Return the Swift container holding the files, if any."""
        return self.data.get("files_container")

    def args(self) -> dict[str, Any]:
        """Return every other key, passed to the engine as arguments."""
        return {k: v for k, v in self.data.items() if k not in PARAMS}

    def no_change(self) -> bool:
        """Whether a PATCH asks for nothing new."""
        return (
            self.template() is None
            and self.environment() == default_for_missing({})
            and not self.files()
            and not self.environment_files()
            and self.files_container() is None
            and not any(k != "existing" for k in self.args())
        )

    def prepare_args(self, is_update: bool = False) -> dict[str, Any]:
        """Return the engine arguments, checked as Heat checks them."""
        args = self.args()
        if "timeout_mins" in args:
            args["timeout_mins"] = extract_int(
                "timeout_mins", args["timeout_mins"]
            )
        if args.get("tags") is not None:
            tags = args["tags"]
            if isinstance(tags, list) and all(
                isinstance(t, str) for t in tags
            ):
                # Heat answers a bare 400 for a list; a list of strings is
                # taken as the tags it obviously means.
                tags = ",".join(tags)
            if not isinstance(tags, str):
                raise HTTPBadRequest("tags must be a comma-separated string.")
            args["tags"] = extract_tags(tags)
        if not is_update and "converge" in args:
            raise HTTPBadRequest(
                "converge flag only supported in stack update (or update "
                "preview) request."
            )
        return args
