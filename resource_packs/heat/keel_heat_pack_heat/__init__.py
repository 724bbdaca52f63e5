"""Heat-internal resource types (OS::Heat::*, AWS::CloudFormation::*)."""

__version__ = "0.1.0"

#: The plugin API versions this distribution works with (PEP 440), read
#: through its ``keel_heat.plugin_api`` entry point before it is loaded.
PLUGIN_API_REQUIRES = ">=1.0,<2"
