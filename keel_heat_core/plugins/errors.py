"""Start-up errors of the plugin registry."""


class PluginError(Exception):
    """The installed plugins cannot be used as configured."""


class DuplicatePluginError(PluginError):
    """Two distributions register the same name in the same group."""

    def __init__(self, group: str, name: str, first: str, second: str) -> None:
        self.group = group
        self.name = name
        self.distributions = (first, second)
        super().__init__(
            f"{group} name {name!r} is registered by two distributions: "
            f"{first} and {second}. Uninstall one of them or list one in "
            f"[plugins] disabled_packs."
        )


class RequiredPackError(PluginError):
    """A pack listed in ``[plugins] required_packs`` cannot be used."""


class PluginLoadError(PluginError):
    """An entry point failed to import."""


class PluginApiVersionError(PluginLoadError):
    """A distribution is not made for this core's plugin API version.

    :ivar distribution: ``name version`` of the distribution.
    :ivar supported: the range it declares (None when it declares none).
    :ivar current: the core's ``PLUGIN_API_VERSION``.
    :ivar core: the version of the keel-heat-core distribution.
    """

    def __init__(
        self,
        distribution: str,
        supported: str | None,
        current: str,
        problem: str | None,
        core: str = "",
    ) -> None:
        self.distribution = distribution
        self.supported = supported
        self.current = current
        self.core = core
        problem = problem or (f"supports plugin API versions {supported!r}")
        super().__init__(
            f"{distribution} is refused: it {problem}, and this "
            f"keel-heat-core {core} provides plugin API {current}. Install a "
            f"release of {distribution.split()[0]} made for plugin API "
            f"{current}, or list it in [plugins] disabled_packs."
        )
