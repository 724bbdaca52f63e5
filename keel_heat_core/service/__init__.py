"""The engine: RPC endpoints, cotyledon-friendly services, their wiring.

Importing it installs the engine's template-resource class in the
resource registry, which the template layer cannot import itself.
"""

from keel_heat_core.model.template_resource import TemplateResource
from keel_heat_core.template import registry

registry.template_resource_class = TemplateResource
