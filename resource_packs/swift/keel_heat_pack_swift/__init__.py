"""keel-heat resource pack: the types Heat builds on Swift.

* :mod:`.container`: ``OS::Swift::Container``;
* :mod:`.s3`: ``AWS::S3::Bucket``, a container with S3's vocabulary;
* :mod:`.swift_signal`: ``OS::Heat::SwiftSignalHandle`` and
  ``OS::Heat::SwiftSignal``, a wait condition signalled through a Swift
  temporary URL.

They reach Swift through the ``swift`` client plugin
(keel-heat-client-swift).
"""

#: The plugin API versions this distribution works with (PEP 440), read
#: through its ``keel_heat.plugin_api`` entry point before it is loaded.
PLUGIN_API_REQUIRES = ">=1.0,<2"
