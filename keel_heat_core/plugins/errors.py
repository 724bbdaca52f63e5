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
