"""Templates the OSC command tests create stacks from."""

SIMPLE = """\
heat_template_version: 2021-04-16
description: one test resource
parameters:
  v: {type: string, default: one}
  wait: {type: number, default: 0}
resources:
  thing:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: v}
      action_wait_secs: {update: {get_param: wait}}
outputs:
  said:
    description: what the resource said
    value: {get_attr: [thing, output]}
"""

WITH_FILE = """\
heat_template_version: 2021-04-16
parameters:
  greeting: {type: string, default: from-template}
resources:
  thing:
    type: OS::Heat::TestResource
    properties: {value: {get_param: greeting}}
  config:
    type: OS::Heat::TestResource
    properties: {value: {get_file: data.txt}}
outputs:
  said: {value: {get_attr: [thing, output]}}
  data: {value: {get_attr: [config, output]}}
"""

LEAF = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string}
resources:
  leaf_thing:
    type: OS::Heat::TestResource
    description: the innermost resource
    properties: {value: {get_param: v}}
outputs:
  out: {value: {get_attr: [leaf_thing, output]}}
"""

MIDDLE = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string}
resources:
  inner: {type: leaf.yaml, properties: {v: {get_param: v}}}
outputs:
  out: {value: {get_attr: [inner, out]}}
"""

TOP = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string, default: deep}
resources:
  mid: {type: middle.yaml, properties: {v: {get_param: v}}}
  random: {type: OS::Heat::RandomString}
outputs:
  out: {value: {get_attr: [mid, out]}}
"""

SIGNALLED = """\
heat_template_version: 2021-04-16
resources:
  # without Keystone (the embedded mode) the handle cannot make its stack
  # user and fails to create, but it still takes signals
  handle:
    type: OS::Heat::WaitConditionHandle
    properties: {signal_transport: NO_SIGNAL}
  thing:
    type: OS::Heat::TestResource
    properties: {value: hello}
"""
